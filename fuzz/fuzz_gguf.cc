// libFuzzer target: bytes -> kvcat::read_gguf_header and import_model_gguf, as
// `kvcat import-config FILE.gguf` reads a GGUF file's header and writes a model record.
//
// A header kvcat cannot read throws GgufError (or std::runtime_error for the file itself),
// nothing else; one that is read has a power-of-two alignment and tensor data inside the file.
// The import of its metadata never throws: every problem is a message in the result.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "fuzz_check.h"
#include "import/gguf.h"
#include "import/import_gguf.h"

using kvcat::fuzz::check;

namespace {

/// The file each input is written to: the reader reads a path, as the command does.
const std::string& input_path() {
    static const std::string path = "/tmp/kvcat-fuzz-gguf-" + std::to_string(::getpid()) + ".gguf";
    return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    {
        std::ofstream out(input_path(), std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    kvcat::GgufHeader header;
    try {
        header = kvcat::read_gguf_header(input_path());
    } catch (const kvcat::GgufError&) {
        return 0;
    } catch (const std::runtime_error&) {
        return 0;
    }
    const kvcat::GgufWeights& w = header.weights;
    check(w.alignment > 0 && (w.alignment & (w.alignment - 1)) == 0, "an alignment that is not a power of two");
    check(w.data_offset <= w.file_size && w.data_bytes == w.file_size - w.data_offset, "tensor data outside the file");
    kvcat::ImportOptions options;
    options.config_file = "fuzz.gguf";
    options.name = "Fuzz";
    options.total_params_b = options.active_params_b = 1;
    kvcat::ImportResult result = kvcat::import_model_gguf(header.metadata, options);
    check(!result.ok() || !result.text.empty(), "an import that succeeded without a record");
    return 0;
}
