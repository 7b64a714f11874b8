// A GGUF's weights read from its header alone: by HTTP range requests from a server on the
// loopback address (and the ways a server can fail), and across the parts of a split model.

#include <chrono>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gguf_file.h"
#include "import/gguf.h"
#include "import/http_range.h"
#include "kvcat_runner.h"
#include "loopback_http.h"
#include "test_util.h"

namespace {

using kvcat::test::contains;
using kvcat::test::GgufFile;
using kvcat::test::KvcatRunner;
using kvcat::test::LoopbackHttp;
using kvcat::test::Outcome;
using kvcat::test::TempDir;

constexpr std::uint64_t kData = std::uint64_t{8} << 20;  // 8 MiB of tensor data behind a small header

/// The error read_gguf_weights throws for `url`, or "" when it throws none.
std::string error_of(const std::string& url, const kvcat::HttpLimits& limits = {}) {
    try {
        kvcat::read_gguf_weights(url, limits);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

TEST(RemoteGguf, ReadsTheHeaderByRangeRequestsAndGivesWhatTheFileGives) {
    GgufFile f(kData);
    LoopbackHttp server({{"m.gguf", f.bytes()}});
    kvcat::GgufWeights local = kvcat::read_gguf_weights(f.path());
    kvcat::GgufWeights remote = kvcat::read_gguf_weights(server.url("m.gguf"));
    EXPECT_EQ(remote.data_bytes, local.data_bytes);
    EXPECT_EQ(remote.data_bytes, kData);
    EXPECT_EQ(remote.file_size, local.file_size);
    EXPECT_EQ(remote.data_offset, local.data_offset);
    EXPECT_EQ(remote.tensors, 2u);
    // Each tensor's extent, to the next one's offset or the data's end, the same both ways.
    ASSERT_EQ(remote.extents.size(), 2u);
    EXPECT_EQ(remote.extents[0].name, "token_embd.weight");
    EXPECT_EQ(remote.extents[0].bytes, 64u);
    EXPECT_EQ(remote.extents[1].name, "output.weight");
    EXPECT_EQ(remote.extents[1].bytes, kData - 64);
    EXPECT_EQ(local.extents[1].bytes, kData - 64);
    // One request of 1 MiB holds this header: the 8 MiB behind it never cross the wire.
    EXPECT_EQ(remote.requests, 1);
    EXPECT_EQ(server.requests(), 1);
    EXPECT_EQ(remote.fetched_bytes, std::uint64_t{1} << 20);
    EXPECT_EQ(server.body_bytes_sent(), std::uint64_t{1} << 20);
}

TEST(RemoteGguf, AHeaderLargerThanTheByteCapIsRefusedAtTheCap) {
    GgufFile f(kData);
    LoopbackHttp server({{"m.gguf", f.bytes()}});
    kvcat::HttpLimits small;
    small.max_bytes = 100;  // less than this header
    std::string why = error_of(server.url("m.gguf"), small);
    EXPECT_TRUE(
        contains(why, "reading the header would take more than 100 bytes, the most kvcat reads of a remote file"))
        << why;
    EXPECT_EQ(server.requests(), 1);  // the first 100 bytes; the next request is refused before it is made
    EXPECT_EQ(server.body_bytes_sent(), 100u);
}

TEST(RemoteGguf, FollowsARedirectAsHuggingFacesResolveLinksNeed) {
    GgufFile f(kData);
    LoopbackHttp server({{"m.gguf", f.bytes()}}, LoopbackHttp::Mode::redirect);
    kvcat::GgufWeights remote = kvcat::read_gguf_weights(server.url("m.gguf"));
    EXPECT_EQ(remote.data_bytes, kData);
    EXPECT_EQ(server.requests(), 2);  // the 302, then the range
}

TEST(RemoteGguf, AServerThatSendsTheWholeFileIsStoppedAndNamed) {
    GgufFile f(kData);
    LoopbackHttp server({{"m.gguf", f.bytes()}}, LoopbackHttp::Mode::whole_file);
    std::string why = error_of(server.url("m.gguf"));
    EXPECT_TRUE(contains(why, "does not answer range requests")) << why;
    EXPECT_TRUE(contains(why, "download the file and give its path")) << why;
    // kvcat hung up after its 1 MiB: the server could not send the 8 MiB (the socket's buffers
    // hold a few MiB at most on the loopback).
    EXPECT_LT(server.body_bytes_sent(), kData);
}

TEST(RemoteGguf, ASmallFileSentWholeIsReadAsTheWholeFile) {
    GgufFile f(1000);
    LoopbackHttp server({{"m.gguf", f.bytes()}}, LoopbackHttp::Mode::whole_file);
    kvcat::GgufWeights remote = kvcat::read_gguf_weights(server.url("m.gguf"));
    EXPECT_EQ(remote.data_bytes, 1000u);
}

TEST(RemoteGguf, MissingFileStalledServerAndOtherSchemesAreErrorsThatSayWhich) {
    GgufFile f(1000);
    LoopbackHttp server({{"m.gguf", f.bytes()}});
    std::string missing = error_of(server.url("other.gguf"));
    EXPECT_TRUE(contains(missing, "HTTP 404 for bytes 0-1048575, where kvcat expected 206")) << missing;

    LoopbackHttp stalled({{"m.gguf", f.bytes()}}, LoopbackHttp::Mode::stall);
    kvcat::HttpLimits quick;
    quick.deadline = std::chrono::milliseconds(300);
    auto start = std::chrono::steady_clock::now();
    std::string late = error_of(stalled.url("m.gguf"), quick);
    auto took = std::chrono::steady_clock::now() - start;
    EXPECT_TRUE(contains(late, "no header within 0.3 s, kvcat's limit for a remote file")) << late;
    EXPECT_LT(took, std::chrono::seconds(30));  // bounded: the deadline, not the server, ends it

    std::string ftp = error_of("ftp://127.0.0.1/m.gguf");
    EXPECT_TRUE(contains(ftp, "from a path, or from an http:// or https:// address")) << ftp;
    std::string closed = error_of("http://127.0.0.1:1/m.gguf");
    EXPECT_FALSE(closed.empty());
}

TEST(RemoteGguf, ACutHeaderFromAServerIsTheSameErrorAsFromAFile) {
    GgufFile f(100);
    std::string cut = f.bytes().substr(0, 40);
    LoopbackHttp server({{"m.gguf", cut}});
    std::string why = error_of(server.url("m.gguf"));
    EXPECT_TRUE(contains(why, "the header is cut short at byte")) << why;
}

/// Parts of a split model, written side by side as llama.cpp's gguf-split names them.
struct SplitModel {
    TempDir dir;
    std::vector<std::string> paths;
    std::vector<std::string> bytes;
    SplitModel(const std::vector<std::uint64_t>& data, const std::string& prefix = "model") {
        auto count = static_cast<std::uint16_t>(data.size());
        for (std::uint16_t i = 0; i < count; ++i) {
            std::string name = prefix + "-0000" + std::to_string(i + 1) + "-of-0000" + std::to_string(count) + ".gguf";
            GgufFile part(data[i], 0x46554747u, i, count, name);
            paths.push_back((dir.path() / name).string());
            bytes.push_back(part.bytes());
            std::ofstream(paths.back(), std::ios::binary) << part.bytes();
        }
    }
};

TEST(SplitGguf, TheFirstPartSumsEveryPart) {
    SplitModel m({1000, 2000, 3000});
    kvcat::GgufWeights w = kvcat::read_gguf_weights(m.paths[0]);
    EXPECT_EQ(w.split_count, 3u);
    EXPECT_EQ(w.data_bytes, 6000u);
    EXPECT_EQ(w.tensors, 6u);
    std::uint64_t files = 0;
    for (const auto& b : m.bytes) files += b.size();
    EXPECT_EQ(w.file_size, files);
    EXPECT_TRUE(contains(kvcat::gguf_weights_how(m.paths[0], w), "and its 2 other parts: 6 tensors"));

    // Served: the same sums, one request a part.
    LoopbackHttp server({{"model-00001-of-00003.gguf", m.bytes[0]},
                         {"model-00002-of-00003.gguf", m.bytes[1]},
                         {"model-00003-of-00003.gguf", m.bytes[2]}});
    kvcat::GgufWeights remote = kvcat::read_gguf_weights(server.url("model-00001-of-00003.gguf"));
    EXPECT_EQ(remote.data_bytes, 6000u);
    EXPECT_EQ(remote.requests, 3);
}

TEST(SplitGguf, ALaterPartAMissingPartOrAnUnnamedFirstPartIsRefused) {
    SplitModel m({1000, 2000, 3000});
    std::string later = error_of(m.paths[1]);
    EXPECT_TRUE(contains(later, "this is part 2 of 3 of a split model; give the first part")) << later;
    std::filesystem::remove(m.paths[2]);
    std::string gone = error_of(m.paths[0]);
    EXPECT_TRUE(contains(gone, "part 3 of 3")) << gone;
    EXPECT_TRUE(contains(gone, "model-00003-of-00003.gguf")) << gone;

    TempDir d;
    auto renamed = d.path() / "first.gguf";
    std::ofstream(renamed, std::ios::binary) << m.bytes[0];
    std::string unnamed = error_of(renamed.string());
    EXPECT_TRUE(contains(unnamed, "its name does not end in -00001-of-00003.gguf")) << unnamed;
}

TEST(FitCli, WeightFileTakesAnAddressAndSaysHowItReadIt) {
    GgufFile f(kData);
    LoopbackHttp server({{"m.gguf", f.bytes()}});
    KvcatRunner k;
    auto run = [&](const std::string& where) {
        return k.run({"fit", "--model", "models/qwen3.5-27b", "--accelerator", "accelerators/nvidia-rtx-3090",
                      "--weight-file", where, "--kv-dtype", "bf16", "--format", "json"});
    };
    Outcome remote = run(server.url("m.gguf"));
    ASSERT_EQ(remote.status, 0) << remote.err;
    Outcome local = run(f.path());
    ASSERT_EQ(local.status, 0) << local.err;
    auto r = nlohmann::json::parse(remote.out);
    auto l = nlohmann::json::parse(local.out);
    EXPECT_EQ(r["weight_bytes"], kData);
    EXPECT_EQ(r["weight_bytes"], l["weight_bytes"]);
    EXPECT_EQ(r["max_context"], l["max_context"]);
    EXPECT_TRUE(contains(r["weights_how"].get<std::string>(), "(its header read by 1 range request, 1,048,576 bytes)"))
        << r.dump();

    Outcome missing = run(server.url("nothing.gguf"));
    EXPECT_EQ(missing.status, 2);  // an input kvcat cannot read, as for a missing file
    EXPECT_TRUE(contains(missing.err, server.url("nothing.gguf") + ": HTTP 404")) << missing.err;
}

}  // namespace
