//===- Sha256Test.cpp - SHA-256 against the FIPS 180-4 test vectors -------===//
#include "kiln/Runtime/Sha256.h"

#include <catch2/catch.hpp>

#include <string>

using namespace kiln;

TEST_CASE("SHA-256: the standard test vectors", "[sha256]") {
  CHECK(sha256Hex("") ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256Hex("abc") ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                  "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu") ==
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  CHECK(sha256Hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("SHA-256: messages around the padding boundaries", "[sha256]") {
  // 55 bytes pad into one block, 56 need a second; 64 fill a block exactly.
  const std::pair<size_t, const char *> Cases[] = {
      {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
      {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
      {63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
      {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
      {65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
      {119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
      {120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
  };
  for (auto [Length, Expected] : Cases) {
    INFO("length " << Length);
    CHECK(sha256Hex(std::string(Length, 'a')) == Expected);
  }
}

TEST_CASE("SHA-256: incremental updates equal one update", "[sha256]") {
  std::string Message;
  for (int I = 0; I < 1000; ++I)
    Message.push_back(char(I * 7 + 3));
  const std::string Whole = sha256Hex(Message);
  for (size_t Chunk : {1, 3, 63, 64, 65, 200}) {
    INFO("chunk " << Chunk);
    Sha256 H;
    for (size_t Pos = 0; Pos < Message.size(); Pos += Chunk)
      H.update(std::string_view(Message).substr(Pos, Chunk));
    CHECK(Sha256::hex(H.finish()) == Whole);
  }
  // finish() resets: the same object hashes the next message from scratch.
  Sha256 H;
  H.update("discarded");
  H.finish();
  H.update("abc");
  CHECK(Sha256::hex(H.finish()) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
