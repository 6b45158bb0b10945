//===- ReplayEvaluatorTest.cpp - Kernel Tuner cache files as a backend ----===//
#include "kiln/Tuner/ReplayEvaluator.h"
#include "kiln/Tuner/Strategy.h"

#include <catch2/catch.hpp>

#include <zlib.h>

#include <filesystem>
#include <fstream>

using namespace kiln::tuner;

namespace {

const char *kCache = R"({
 "device_name": "Test GPU", "kernel_name": "k", "problem_size": [64],
 "tune_params_keys": ["bx", "mode", "unroll"],
 "tune_params": {"bx": [32, 64, 128], "mode": ["fast", "safe"],
                 "unroll": [1.5, 2.5]},
 "objective": "time",
 "cache": {
  "64,fast,1.5": {"bx": 64, "mode": "fast", "unroll": 1.5, "time": 2.5,
                  "times": [2.5, 2.5]},
  "32,safe,2.5": {"bx": 32, "mode": "safe", "unroll": 2.5, "time": 4.0},
  "128,fast,2.5": {"bx": 128, "mode": "fast", "unroll": 2.5,
                   "time": "CompilationFailedConfig"},
  "32,fast,1.5": {"bx": 32, "mode": "fast", "unroll": 1.5, "time": 3.0},
  "128,safe,1.5": {"bx": 128, "mode": "safe", "unroll": 1.5,
                   "time": "RuntimeFailedConfig"}
 }
})";

/// A fresh directory under the system temp dir.
std::filesystem::path tempDir() {
  static int Count = 0;
  std::filesystem::path D = std::filesystem::temp_directory_path() /
                            ("kiln-replay-test-" + std::to_string(::getpid()) +
                             "-" + std::to_string(Count++));
  std::filesystem::create_directories(D);
  return D;
}

std::string write(const std::filesystem::path &P, const std::string &Bytes) {
  std::ofstream(P, std::ios::binary) << Bytes;
  return P.string();
}

std::string gzip(const std::string &Text) {
  z_stream Z{};
  REQUIRE(deflateInit2(&Z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8,
                       Z_DEFAULT_STRATEGY) == Z_OK);
  std::string Out(deflateBound(&Z, uLong(Text.size())) + 64, '\0');
  Z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(Text.data()));
  Z.avail_in = uInt(Text.size());
  Z.next_out = reinterpret_cast<Bytef *>(Out.data());
  Z.avail_out = uInt(Out.size());
  REQUIRE(deflate(&Z, Z_FINISH) == Z_STREAM_END);
  Out.resize(Z.total_out);
  deflateEnd(&Z);
  return Out;
}

std::string loadError(const std::string &File) {
  try {
    ReplayEvaluator::load(File);
  } catch (const std::runtime_error &E) {
    return E.what();
  }
  return "(no error)";
}

std::string parseError(const std::string &Text) {
  try {
    ReplayEvaluator::parse(Text, "bad.json");
  } catch (const std::runtime_error &E) {
    return E.what();
  }
  return "(no error)";
}

void checkTiny(ReplayEvaluator &R) {
  const SearchSpace &S = R.space();
  REQUIRE(S.size() == 5);
  CHECK(S.names() == std::vector<std::string>{"bx", "mode", "unroll"});
  CHECK(R.deviceName() == "Test GPU");
  CHECK(R.kernelName() == "k");
  // Non-integer values are coded by their position in tune_params.
  CHECK(S.domain(1) == std::vector<int64_t>{0, 1});
  CHECK(S.domain(2) == std::vector<int64_t>{0, 1});
  std::optional<size_t> Best = S.find({64, 0, 0});
  REQUIRE(Best);
  REQUIRE(R.optimum());
  CHECK(*R.optimum() == *Best);
  CHECK(R.optimumSeconds() == Approx(2.5e-3));
  CHECK(R.describe(*Best) == "bx=64,mode=fast,unroll=1.5");
  std::optional<size_t> Failed = S.find({128, 0, 1});
  REQUIRE(Failed);
  std::vector<Measurement> M = R.evaluate({*Failed, *Best});
  REQUIRE(M.size() == 2);
  CHECK_FALSE(M[0].Valid);
  CHECK(M[0].Failure == "CompilationFailedConfig");
  CHECK(M[1].Valid);
  CHECK(M[1].Seconds == Approx(2.5e-3));
  CHECK(R.recorded(*S.find({128, 1, 0})).Failure == "RuntimeFailedConfig");
  CHECK(R.evaluations() == 2);
}

} // namespace

TEST_CASE("replay reads a plain JSON cache file", "[tuner]") {
  std::filesystem::path D = tempDir();
  ReplayEvaluator R = ReplayEvaluator::load(write(D / "tiny.json", kCache));
  checkTiny(R);
  std::filesystem::remove_all(D);
}

TEST_CASE("replay reads gzip by its magic bytes, not its name", "[tuner]") {
  std::filesystem::path D = tempDir();
  std::string Gz = gzip(kCache);
  ReplayEvaluator A = ReplayEvaluator::load(write(D / "tiny.json.gz", Gz));
  checkTiny(A);
  ReplayEvaluator B = ReplayEvaluator::load(write(D / "misnamed.json", Gz));
  checkTiny(B);
  // Truncated gzip: a clear error naming the file.
  std::string Cut = write(D / "cut.json.gz", Gz.substr(0, Gz.size() / 2));
  std::string Msg = loadError(Cut);
  CHECK(Msg.find(Cut) != std::string::npos);
  CHECK(Msg.find("truncated") != std::string::npos);
  // Corrupt deflate data after a valid header.
  std::string Bad = Gz;
  for (size_t I = 12; I < Bad.size() - 8; ++I)
    Bad[I] = char(0xff);
  CHECK(loadError(write(D / "bad.json.gz", Bad)).find("gzip") !=
        std::string::npos);
  CHECK(loadError((D / "absent.json").string()).find("cannot read: No such file") !=
        std::string::npos);
  std::filesystem::remove_all(D);
}

TEST_CASE("replay rejects malformed cache files clearly", "[tuner]") {
  // JSON syntax errors carry llvm::json's line:column.
  std::string Msg = parseError("{\n \"cache\": {,}\n}");
  CHECK(Msg.find("bad.json") != std::string::npos);
  CHECK(Msg.find("not valid JSON") != std::string::npos);
  CHECK(Msg.find("2:") != std::string::npos);
  CHECK(parseError("[1, 2]").find("not a JSON object") != std::string::npos);
  CHECK(parseError(R"({"cache": {}})").find("tune_params_keys") !=
        std::string::npos);
  CHECK(parseError(R"({"tune_params_keys": ["a"]})").find("\"cache\"") !=
        std::string::npos);
  CHECK(parseError(R"({"tune_params_keys": ["a"], "cache": {}})")
            .find("no entries") != std::string::npos);
  // The key disagrees with the entry's values.
  Msg = parseError(R"({"tune_params_keys": ["a", "b"], "cache": {
      "1,2": {"a": 1, "b": 3, "time": 1.0}}})");
  CHECK(Msg.find("disagrees") != std::string::npos);
  CHECK(Msg.find("\"1,2\"") != std::string::npos);
  CHECK(parseError(R"({"tune_params_keys": ["a", "b"], "cache": {
      "1": {"a": 1, "b": 3, "time": 1.0}}})")
            .find("1 values for 2 parameters") != std::string::npos);
  CHECK(parseError(R"({"tune_params_keys": ["a", "b"], "cache": {
      "1,2": {"a": 1, "time": 1.0}}})")
            .find("lacks parameter \"b\"") != std::string::npos);
  CHECK(parseError(R"({"tune_params_keys": ["a"], "cache": {
      "1": {"a": 1}}})")
            .find("lacks \"time\"") != std::string::npos);
  CHECK(parseError(R"({"tune_params_keys": ["a"], "cache": {
      "1": {"a": 1, "time": "Exploded"}}})")
            .find("neither a number") != std::string::npos);
  CHECK(parseError(R"({"tune_params_keys": ["a"], "cache": {
      "x": {"a": "x", "time": 1.0}}})")
            .find("not an integer") != std::string::npos);
  CHECK(parseError(R"({"tune_params_keys": ["a"], "tune_params": {"a": ["y"]},
      "cache": {"x": {"a": "x", "time": 1.0}}})")
            .find("not one of") != std::string::npos);
}

TEST_CASE("replay entries do not depend on the file's order", "[tuner]") {
  std::string Reordered = R"({"tune_params_keys": ["a"], "cache": {
      "3": {"a": 3, "time": 1.0}, "1": {"a": 1, "time": 2.0},
      "2": {"a": 2, "time": "InvalidConfig"}}})";
  ReplayEvaluator R = ReplayEvaluator::parse(Reordered, "r.json");
  REQUIRE(R.space().size() == 3);
  CHECK(R.space().point(0) == std::vector<int64_t>{1});
  CHECK(R.space().point(2) == std::vector<int64_t>{3});
  CHECK(R.optimum() == size_t(2));
  CHECK(R.recorded(1).Failure == "InvalidConfig");
  CHECK(R.deviceName().empty());
}

TEST_CASE("every strategy tunes a replayed space", "[tuner]") {
  // 8 x 8 x 4 points with one failed entry that would have been fastest.
  std::string Text =
      R"({"device_name": "G", "kernel_name": "k", "tune_params_keys": ["x", "y", "z"], "cache": {)";
  bool First = true;
  for (int X = 0; X < 8; ++X)
    for (int Y = 0; Y < 8; ++Y)
      for (int Z = 0; Z < 4; ++Z) {
        std::string Key = std::to_string(X) + "," + std::to_string(Y) + "," +
                          std::to_string(Z);
        double Ms = 1 + (X - 5) * (X - 5) + 0.5 * (Y - 2) * (Y - 2) +
                    0.25 * (Z - 1) * (Z - 1);
        std::string Time = (X == 6 && Y == 2 && Z == 1)
                               ? "\"RuntimeFailedConfig\""
                               : std::to_string(Ms);
        Text += std::string(First ? "" : ",") + "\"" + Key +
                "\": {\"x\": " + std::to_string(X) +
                ", \"y\": " + std::to_string(Y) +
                ", \"z\": " + std::to_string(Z) + ", \"time\": " + Time + "}";
        First = false;
      }
  Text += "}}";
  ReplayEvaluator R = ReplayEvaluator::parse(Text, "grid.json");
  REQUIRE(R.optimum());
  CHECK(R.describe(*R.optimum()) == "x=5,y=2,z=1");
  for (const std::string &Name : strategyNames()) {
    INFO(Name);
    TuneOptions O;
    O.Seed = 11;
    O.Limits.MaxEvaluations = 200;
    TuneResult A = runStrategy(Name, R, O);
    REQUIRE(A.Best);
    CHECK(*A.Best == *R.optimum());
    CHECK(A.BestSeconds == Approx(1e-3));
    TuneResult B = runStrategy(Name, R, O);
    REQUIRE(A.History.size() == B.History.size());
    for (size_t I = 0; I < A.History.size(); ++I)
      CHECK(A.History[I].Index == B.History[I].Index);
  }
}
