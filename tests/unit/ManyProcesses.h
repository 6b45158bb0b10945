//===- ManyProcesses.h - Run N child processes at the same moment -*- C++ -*-=//
#ifndef KILN_TESTS_UNIT_MANYPROCESSES_H
#define KILN_TESTS_UNIT_MANYPROCESSES_H

#include <catch2/catch.hpp>

#include <cerrno>
#include <cstdio>
#include <functional>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace kiln::test {

/// Forks N children that start Work(I) together (each blocks on a pipe the
/// parent closes once all exist) and returns their exit statuses in order
/// (Work's return value; 9 if it threw, 100 if the child did not exit).
inline std::vector<int> runAtOnce(int N, const std::function<int(int)> &Work) {
  int Gate[2];
  REQUIRE(pipe(Gate) == 0);
  std::fflush(nullptr);
  std::vector<pid_t> Children;
  for (int I = 0; I < N; ++I) {
    pid_t Pid = fork();
    REQUIRE(Pid >= 0);
    if (Pid == 0) {
      close(Gate[1]);
      char Byte;
      while (read(Gate[0], &Byte, 1) < 0 && errno == EINTR) {
      }
      int Status = 9;
      try {
        Status = Work(I);
      } catch (...) {
      }
      _exit(Status);
    }
    Children.push_back(Pid);
  }
  close(Gate[0]);
  close(Gate[1]); // Go.
  std::vector<int> Statuses;
  for (pid_t Pid : Children) {
    int Status = 0;
    waitpid(Pid, &Status, 0);
    Statuses.push_back(WIFEXITED(Status) ? WEXITSTATUS(Status) : 100);
  }
  return Statuses;
}

} // namespace kiln::test

#endif // KILN_TESTS_UNIT_MANYPROCESSES_H
