// The chunked-body decoder: payload compaction, every split of a stream into
// reads, the last chunk, extensions, and malformed framing.
#include <string>
#include <vector>

#include "check.h"
#include "dechunk.h"

using namespace lgsse;

namespace {

struct Body {
  std::vector<int32_t> state = std::vector<int32_t>(kChSlotCount, 0);
  std::string payload;
  std::string handed;  // what goes to undici from the last chunk on
  bool ended = false;
  int error = 0;

  // One read, the way the adapter handles it.
  void Read(std::string r) {
    if (ended || error) return;
    Dechunk(reinterpret_cast<uint8_t*>(r.data()), r.size(), state.data());
    payload += r.substr(state[kChOutStart], state[kChOutLen]);
    if (state[kChError]) {
      error = state[kChError];
      return;
    }
    if (state[kChLastEnd] >= 0) {
      ended = true;
      handed = state[kChLastStart] >= 0 ? r.substr(state[kChLastStart]) : "0\r\n" + r.substr(state[kChLastEnd]);
    }
  }
};

std::string Chunk(const std::string& data) {
  char size[16];
  std::snprintf(size, sizeof size, "%zx", data.size());
  return std::string(size) + "\r\n" + data + "\r\n";
}

}  // namespace

TEST_CASE("dechunk: several chunks in one read come out contiguous") {
  Body b;
  b.Read(Chunk("data: {\"a\":1}\n\n") + Chunk("data: [DONE]\n\n") + "0\r\n\r\n");
  CHECK_EQ(b.payload, std::string("data: {\"a\":1}\n\ndata: [DONE]\n\n"));
  CHECK(b.ended);
  CHECK_EQ(b.handed, std::string("0\r\n\r\n"));
  CHECK_EQ(b.error, 0);
}

TEST_CASE("dechunk: the first payload is not moved") {
  std::string r = Chunk("hello");
  std::vector<int32_t> st(kChSlotCount, 0);
  Dechunk(reinterpret_cast<uint8_t*>(r.data()), r.size(), st.data());
  CHECK_EQ(st[kChOutStart], 3);
  CHECK_EQ(st[kChOutLen], 5);
  CHECK_EQ(st[kChPhase], kChSizeStart);
  CHECK_EQ(st[kChLastEnd], -1);
}

TEST_CASE("dechunk: every split point of a stream gives the same payload") {
  const std::string stream = Chunk("data: one\n\n") + Chunk(std::string(300, 'x')) + Chunk("z") + "0\r\n\r\n";
  const std::string want = "data: one\n\n" + std::string(300, 'x') + "z";
  for (size_t a = 0; a <= stream.size(); a++) {
    for (size_t b = a; b <= stream.size(); b += 7) {
      Body body;
      for (const auto& piece : {stream.substr(0, a), stream.substr(a, b - a), stream.substr(b)}) {
        if (!piece.empty()) body.Read(piece);
      }
      if (body.payload != want || !body.ended || body.error) {
        std::printf("  split %zu/%zu: payload %zu bytes, ended %d, error %d\n", a, b, body.payload.size(), body.ended,
                    body.error);
        CHECK(false);
        return;
      }
      // undici gets the last chunk's line (rebuilt when it was split) and everything after it.
      CHECK_EQ(body.handed.substr(0, 3), std::string("0\r\n"));
    }
  }
}

TEST_CASE("dechunk: one byte per read") {
  const std::string stream = Chunk("abc") + Chunk("defg") + "0\r\n\r\n";
  Body b;
  for (char c : stream) b.Read(std::string(1, c));
  CHECK_EQ(b.payload, std::string("abcdefg"));
  CHECK(b.ended);
  CHECK_EQ(b.handed, std::string("0\r\n"));  // the final CRLF comes in later reads, also undici's
}

TEST_CASE("dechunk: upper-case hex, leading zeros, extensions and trailers") {
  Body b;
  b.Read("00A;name=value\r\n0123456789\r\n1 ; x\r\n!\r\n0;last\r\nTrailer: t\r\n\r\n");
  CHECK_EQ(b.payload, std::string("0123456789!"));
  CHECK(b.ended);
  CHECK_EQ(b.handed, std::string("0;last\r\nTrailer: t\r\n\r\n"));
}

TEST_CASE("dechunk: malformed framing is reported, with the payload before it") {
  {
    Body b;
    b.Read(Chunk("ok") + "zz\r\n");
    CHECK_EQ(b.error, kChBadSize);
    CHECK_EQ(b.payload, std::string("ok"));
  }
  {
    Body b;
    b.Read("3\r\nabcX\r\n");
    CHECK_EQ(b.error, kChBadCrlf);
  }
  {
    Body b;
    b.Read("3\nabc\r\n");  // bare LF after the size
    CHECK_EQ(b.error, kChBadSize);
  }
  {
    Body b;
    b.Read("3;ext\nabc\r\n");
    CHECK_EQ(b.error, kChBadSize);
  }
  {
    Body b;
    b.Read("80000000\r\n");
    CHECK_EQ(b.error, kChTooLarge);
  }
  {
    Body b;
    b.Read("000000001\r\n");  // nine digits
    CHECK_EQ(b.error, kChTooLarge);
  }
  {
    Body b;
    b.Read("\r\n");
    CHECK_EQ(b.error, kChBadSize);
  }
}

TEST_CASE("dechunk: data left in a chunk carries over") {
  Body b;
  b.Read("a\r\n01234");
  CHECK_EQ(b.state[kChPhase], kChData);
  CHECK_EQ(b.state[kChValue], 5);
  b.Read("56789\r");
  CHECK_EQ(b.state[kChPhase], kChDataLf);
  b.Read("\n0\r\n\r\n");
  CHECK_EQ(b.payload, std::string("0123456789"));
  CHECK(b.ended);
  CHECK_EQ(b.handed, std::string("0\r\n\r\n"));
}

TEST_MAIN()
