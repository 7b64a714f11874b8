// The parse floor: yaml-cpp reading and parsing the same record files on every core,
// every byte of them, and nothing else. bench/run reports kvcat's time as a ratio of it.
// kvcat's loader hands yaml-cpp less than every byte (src/load/scalar_lift.h), so a build can
// come near this or under it.
//
// Usage: kvcat_parse_floor DIR [THREADS]
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

namespace {

/// Receives yaml-cpp's events and keeps nothing: the cheapest complete parse.
class Discard : public YAML::EventHandler {
  public:
    std::size_t events = 0;
    void OnDocumentStart(const YAML::Mark&) override { ++events; }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override { ++events; }
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override { ++events; }
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override { ++events; }
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
        ++events;
    }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
        ++events;
    }
    void OnMapEnd() override {}
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: kvcat_parse_floor DIR [THREADS]\n";
        return 2;
    }
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::recursive_directory_iterator(argv[1])) {
        if (e.is_regular_file() && e.path().extension() == ".yaml") files.push_back(e.path());
    }
    unsigned threads =
        argc > 2 ? static_cast<unsigned>(std::stoul(argv[2])) : std::max(1u, std::thread::hardware_concurrency());
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> events{0};
    std::atomic<std::size_t> failures{0};
    auto work = [&] {
        Discard handler;
        for (std::size_t i = next++; i < files.size(); i = next++) {
            std::ifstream in(files[i], std::ios::binary);
            std::stringstream text;
            text << in.rdbuf();
            try {
                YAML::Parser parser(text);
                while (parser.HandleNextDocument(handler)) {
                }
            } catch (const std::exception&) {
                ++failures;
            }
        }
        events += handler.events;
    };
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
    for (auto& t : pool) t.join();
    std::cout << files.size() << " files, " << events << " events, " << failures << " failures\n";
    return failures ? 1 : 0;
}
