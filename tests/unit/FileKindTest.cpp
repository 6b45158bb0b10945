//===- FileKindTest.cpp - What a path names, before kiln touches it -------===//
//
// inspectPath, whyNotReplaceable, openRegularForRead and openLockFile on a
// regular file, a directory, a FIFO, a dangling link, a link loop, a missing
// directory and (where the test may mknod) character devices.
//
//===----------------------------------------------------------------------===//
#include "kiln/Runtime/FileKind.h"

#include "TestFiles.h"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

using namespace kiln;
using kiln::test::TempDir;

namespace {

void touch(const std::string &Path) {
  int Fd = open(Path.c_str(), O_WRONLY | O_CREAT, 0644);
  REQUIRE(Fd >= 0);
  close(Fd);
}

} // namespace

TEST_CASE("file kinds: regular files, directories, FIFOs and links",
          "[filekind]") {
  TempDir D;
  std::string File = D.Path + "/file", Fifo = D.Path + "/fifo";
  touch(File);
  REQUIRE(mkfifo(Fifo.c_str(), 0644) == 0);
  REQUIRE(symlink(File.c_str(), (D.Path + "/to-file").c_str()) == 0);
  REQUIRE(symlink((D.Path + "/nothing").c_str(),
                  (D.Path + "/dangling").c_str()) == 0);
  REQUIRE(symlink((D.Path + "/loop").c_str(), (D.Path + "/loop").c_str()) ==
          0);

  CHECK(inspectPath(File).Kind == FileKind::Regular);
  PathInfo Link = inspectPath(D.Path + "/to-file");
  CHECK(Link.Kind == FileKind::Regular);
  CHECK(Link.Resolved.size() >= 5);
  CHECK(Link.Resolved.substr(Link.Resolved.size() - 5) == "/file");
  CHECK(inspectPath(D.Path).Kind == FileKind::Directory);
  CHECK(inspectPath(Fifo).Kind == FileKind::Fifo);
  CHECK(inspectPath(D.Path + "/dangling").Kind == FileKind::DanglingLink);
  CHECK(inspectPath(D.Path + "/loop").Kind == FileKind::DanglingLink);
  CHECK(inspectPath(D.Path + "/missing").Kind == FileKind::Missing);
  CHECK(inspectPath(File + "/below-a-file").Kind == FileKind::Missing);

  CHECK(whyNotReplaceable(File, inspectPath(File)).empty());
  CHECK(whyNotReplaceable(D.Path + "/new", inspectPath(D.Path + "/new"))
            .empty());
  CHECK(whyNotReplaceable(Fifo, inspectPath(Fifo)) ==
        "it is a FIFO, not a regular file");
  CHECK(whyNotReplaceable(D.Path, inspectPath(D.Path)) ==
        "it is a directory, not a regular file");
  CHECK(whyNotReplaceable(D.Path + "/dangling",
                          inspectPath(D.Path + "/dangling"))
            .find("symbolic link to '" + D.Path + "/nothing'") !=
        std::string::npos);
  std::string Deep = D.Path + "/no/such/file";
  CHECK(whyNotReplaceable(Deep, inspectPath(Deep)) ==
        "its directory '" + D.Path + "/no/such' does not exist");
  std::string UnderFile = File + "/x";
  CHECK(whyNotReplaceable(UnderFile, inspectPath(UnderFile)) ==
        "'" + File + "' is a regular file, not a directory");
}

TEST_CASE("file kinds: reading opens regular files only, never waiting",
          "[filekind]") {
  TempDir D;
  std::string File = D.Path + "/file", Fifo = D.Path + "/fifo";
  touch(File);
  REQUIRE(mkfifo(Fifo.c_str(), 0644) == 0);
  std::string Why;
  int Fd = openRegularForRead(File, Why);
  CHECK(Fd >= 0);
  CHECK(Why.empty());
  // The descriptor is blocking again for the reads that follow.
  CHECK((fcntl(Fd, F_GETFL) & O_NONBLOCK) == 0);
  close(Fd);
  // A FIFO with no writer: refused at once (a blocking open would hang).
  CHECK(openRegularForRead(Fifo, Why) == -1);
  CHECK(Why == "it is a FIFO, not a regular file");
  CHECK(openRegularForRead(D.Path, Why) == -1);
  CHECK(Why == "it is a directory, not a regular file");
  CHECK(openRegularForRead(D.Path + "/missing", Why) == -1);
  CHECK(errno == ENOENT);
  CHECK(Why.empty());
}

TEST_CASE("file kinds: lock files are regular and never followed",
          "[filekind]") {
  TempDir D;
  std::string Lock = D.Path + "/x.lock", Why;
  int Fd = openLockFile(Lock, Why);
  CHECK(Fd >= 0);
  close(Fd);
  CHECK(inspectPath(Lock).Kind == FileKind::Regular);
  std::string Linked = D.Path + "/y.lock";
  REQUIRE(symlink(Lock.c_str(), Linked.c_str()) == 0);
  CHECK(openLockFile(Linked, Why) == -1);
  CHECK(Why.find("symbolic link") != std::string::npos);
  std::string Fifo = D.Path + "/z.lock";
  REQUIRE(mkfifo(Fifo.c_str(), 0644) == 0);
  CHECK(openLockFile(Fifo, Why) == -1);
  CHECK(Why == "it is a FIFO, not a regular file");
}

TEST_CASE("file kinds: character devices (made with mknod in a temporary "
          "directory)",
          "[filekind]") {
  TempDir D;
  std::string Null = D.Path + "/null", Zero = D.Path + "/zero";
  if (mknod(Null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0 ||
      mknod(Zero.c_str(), S_IFCHR | 0666, makedev(1, 5)) != 0) {
    WARN("skipped: mknod is not permitted here (needs root or CAP_MKNOD)");
    return;
  }
  CHECK(inspectPath(Null).Kind == FileKind::NullDevice);
  CHECK(inspectPath(Zero).Kind == FileKind::CharDevice);
  CHECK(whyNotReplaceable(Zero, inspectPath(Zero)) ==
        "it is a character device, not a regular file");
  std::string Why;
  // Reading /dev/zero would never end: refused.
  CHECK(openRegularForRead(Zero, Why) == -1);
  CHECK(Why == "it is a character device, not a regular file");
}
