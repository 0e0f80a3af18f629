// The native SSE scanner: framing at any split, ids, finish and usage,
// [DONE], hand-back of what it does not decode, and running out of room.
#include <cstring>
#include <string>
#include <vector>

#include "check.h"
#include "sse_scan.h"

using lgsse::Scan;

namespace {

struct Stream {
  std::vector<int32_t> state = std::vector<int32_t>(lgsse::kSlotCount, 0);
  std::vector<int32_t> ids = std::vector<int32_t>(64, 0);
  std::vector<int32_t> all;  // ids collected across calls
  std::string carry;
  std::vector<std::string> handed_back;

  Stream() { state[lgsse::kServerCount] = -1; }

  // Feeds one read the way the adapter does: carry, call, collect, continue.
  void Feed(const std::string& read) {
    std::string buf = carry + read;
    carry.clear();
    size_t off = 0;
    for (;;) {
      state[lgsse::kIdsLen] = 0;
      Scan(reinterpret_cast<const uint8_t*>(buf.data()) + off, buf.size() - off, state.data(), ids.data(), ids.size());
      for (int i = 0; i < state[lgsse::kIdsLen]; i++) all.push_back(ids[i]);
      if (state[lgsse::kDone]) return;
      const size_t consumed = static_cast<size_t>(state[lgsse::kConsumed]);
      if (state[lgsse::kStatus] == lgsse::kNeedRoom) {
        off += consumed;
        continue;
      }
      if (state[lgsse::kStatus] == lgsse::kHandBack) {
        handed_back.push_back(
            buf.substr(off + state[lgsse::kEventStart], state[lgsse::kEventEnd] - state[lgsse::kEventStart]));
        off += consumed;
        continue;
      }
      carry = buf.substr(off + consumed);
      return;
    }
  }
};

std::string Chunk(const std::string& ids, const char* finish = "null") {
  return "data: "
         "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,"
         "\"text\":\" x\",\"logprobs\":null,\"finish_reason\":" +
         std::string(finish) + ",\"stop_reason\":null,\"token_ids\":[" + ids + "]}]}\n\n";
}

const std::string kUsage =
    "data: "
    "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":{"
    "\"prompt_tokens\":3,\"total_tokens\":9,\"completion_tokens\":6}}\n\n";

std::string Whole() {
  return "data: "
         "{\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_"
         "reason\":null}]}\n\n" +
         Chunk("11") + Chunk("12,13,14") + ": comment\n\n" + Chunk("15") + Chunk("2", "\"stop\"") + kUsage +
         "data: [DONE]\n\n";
}

}  // namespace

TEST_CASE("sse: ids finish usage done in one read") {
  Stream s;
  s.Feed(Whole());
  CHECK_EQ(s.all.size(), 6u);
  CHECK_EQ(s.all[0], 11);
  CHECK_EQ(s.all[5], 2);
  CHECK_EQ(s.state[lgsse::kFinished], 1);
  CHECK_EQ(s.state[lgsse::kServerCount], 6);
  CHECK_EQ(s.state[lgsse::kDone], 1);
  CHECK_EQ(s.handed_back.size(), 1u);  // the chat role chunk
  CHECK(s.handed_back[0].find("\"role\"") != std::string::npos);
}

TEST_CASE("sse: every split point gives the same result") {
  const std::string all = Whole();
  for (size_t cut = 1; cut < all.size(); cut++) {
    Stream s;
    s.Feed(all.substr(0, cut));
    s.Feed(all.substr(cut));
    CHECK_EQ(s.all.size(), 6u);
    CHECK_EQ(s.state[lgsse::kDone], 1);
    CHECK_EQ(s.state[lgsse::kServerCount], 6);
  }
}

TEST_CASE("sse: multi token chunks are counted") {
  Stream s;
  s.Feed(Chunk("1") + Chunk("2,3,4") + Chunk("5,6"));
  CHECK_EQ(s.state[lgsse::kTokenChunks], 3);
  CHECK_EQ(s.state[lgsse::kMultiChunks], 2);
}

TEST_CASE("sse: finish_reason after token_ids, and vLLM's null fields") {
  Stream s;
  s.Feed(
      "data: "
      "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" "
      "a\"},\"logprobs\":null,\"token_ids\":[7],\"finish_reason\":null}]}\n\n");
  CHECK_EQ(s.state[lgsse::kFinished], 0);
  s.Feed(
      "data: "
      "{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" "
      "b\"},\"logprobs\":null,\"token_ids\":[8],\"finish_reason\":\"length\",\"stop_reason\":null}]}\n\n");
  CHECK_EQ(s.state[lgsse::kFinished], 1);
  s.Feed(
      "data: "
      "{\"id\":\"d\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\" "
      "c\",\"logprobs\":null,\"finish_reason\":null,\"stop_reason\":null,\"prompt_token_ids\":null,\"token_"
      "ids\":[9]}],\"usage\":null}\n\n");
  CHECK_EQ(s.all.size(), 3u);
  CHECK_EQ(s.all[2], 9);
  CHECK_EQ(s.state[lgsse::kServerCount], -1);
  CHECK_EQ(s.handed_back.size(), 0u);
}

TEST_CASE("sse: crlf line ends") {
  std::string all = Whole();
  std::string crlf;
  for (char c : all) {
    if (c == '\n')
      crlf += "\r\n";
    else
      crlf += c;
  }
  Stream s;
  s.Feed(crlf.substr(0, 100));
  s.Feed(crlf.substr(100));
  CHECK_EQ(s.all.size(), 6u);
  CHECK_EQ(s.state[lgsse::kDone], 1);
}

TEST_CASE("sse: errors and odd shapes are handed back") {
  Stream s;
  s.Feed("data: {\"error\": {\"message\": \"boom\", \"code\": 500}}\n\n" + Chunk("1,x") + "event: x\ndata: {}\n\n" +
         Chunk("7"));
  CHECK_EQ(s.handed_back.size(), 3u);
  CHECK_EQ(s.all.size(), 1u);
  CHECK_EQ(s.all[0], 7);
}

TEST_CASE("sse: a key inside a string is not a field") {
  Stream s;
  s.Feed("data: {\"choices\":[{\"index\":0,\"text\":\"\\\"token_ids\\\":[99]\",\"token_ids\":[5]}]}\n\n");
  CHECK_EQ(s.all.size(), 1u);
  CHECK_EQ(s.all[0], 5);
}

TEST_CASE("sse: a full ids array asks for room and loses nothing") {
  Stream s;
  s.ids.resize(3);
  s.Feed(Chunk("1") + Chunk("2,3") + Chunk("4") + Chunk("5,6,7") + "data: [DONE]\n\n");
  CHECK_EQ(s.all.size(), 7u);
  for (int i = 0; i < 7; i++) CHECK_EQ(s.all[i], i + 1);
  CHECK(s.handed_back.empty());
}

TEST_CASE("sse: an event with more ids than the array holds is handed back, not looped on") {
  Stream s;
  s.ids.resize(2);
  s.Feed(Chunk("1") + Chunk("5,6,7") + Chunk("8") + "data: [DONE]\n\n");
  CHECK_EQ(s.handed_back.size(), 1u);
  CHECK(s.handed_back[0].find("5,6,7") != std::string::npos);
  CHECK_EQ(s.all.size(), 2u);
  CHECK_EQ(s.state[lgsse::kDone], 1);
}

TEST_CASE("body: a single-choice completion's ids and usage count") {
  const std::string body =
      "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\" a "
      "\\\"token_ids\\\":[9]\","
      "\"finish_reason\":\"length\",\"prompt_token_ids\":[1,2],\"token_ids\":[5, 6,7]}],"
      "\"usage\":{\"prompt_tokens\":2,\"total_tokens\":6,\"completion_tokens\":4}}";
  std::vector<int32_t> state(lgsse::kSlotCount, 0);
  std::vector<int32_t> ids(16, 0);
  lgsse::ScanBody(reinterpret_cast<const uint8_t*>(body.data()), body.size(), state.data(), ids.data(), ids.size());
  CHECK_EQ(state[lgsse::kStatus], static_cast<int32_t>(lgsse::kOk));
  CHECK_EQ(state[lgsse::kIdsLen], 3);
  CHECK_EQ(ids[0], 5);
  CHECK_EQ(ids[2], 7);
  CHECK_EQ(state[lgsse::kServerCount], 4);
}

TEST_CASE("body: errors, missing or empty ids and oversized arrays go to the JSON path") {
  const char* bodies[] = {
      "{\"object\":\"error\",\"message\":\"bad\",\"code\":400}",
      "{\"choices\":[{\"index\":0,\"text\":\"x\"}],\"usage\":{\"completion_tokens\":1}}",
      "{\"choices\":[{\"index\":0,\"token_ids\":[]}]}",
      "{\"choices\":[{\"index\":0,\"token_ids\":[1,2,3,4,5]}]}",
      "not json",
  };
  for (const char* b : bodies) {
    std::vector<int32_t> state(lgsse::kSlotCount, 0);
    std::vector<int32_t> ids(4, 0);
    lgsse::ScanBody(reinterpret_cast<const uint8_t*>(b), std::strlen(b), state.data(), ids.data(), ids.size());
    CHECK_EQ(state[lgsse::kStatus], static_cast<int32_t>(lgsse::kHandBack));
    CHECK_EQ(state[lgsse::kIdsLen], 0);
  }
}

TEST_MAIN()
