// The size of the weights in a GGUF file, read from its header.
//
// A GGUF file is a header (magic, version, metadata key/values, tensor descriptions), padding
// to the alignment, then the tensor data. kvcat reads the header only to find where the data
// starts and how many tensors it holds, and takes the weights as the bytes from there to the
// end of the file: what llama.cpp maps into memory. This needs no table of bytes per block for
// each quantisation type, so a mixed recipe such as Q4_K_M, or a type newer than kvcat, is
// measured as exactly as a plain one. The padding between tensors (under `alignment` bytes
// each) is counted, since it is loaded too.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "import/http_range.h"

namespace kvcat {

/// Thrown for a file that is not a GGUF file or whose header is cut short or inconsistent.
class GgufError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

/// A tensor of a GGUF file: its name and the bytes it spans in the tensor data (to the next
/// tensor's offset, or the data's end: its size and the padding to the file's alignment).
struct GgufTensorExtent {
    std::string name;  ///< "" for a name longer than any tensor name kvcat reads
    std::uint64_t offset = 0;
    std::uint64_t bytes = 0;
};

struct GgufWeights {
    std::uint32_t version = 0;
    std::uint64_t tensors = 0;
    std::uint64_t alignment = 32;
    std::uint64_t data_offset = 0;  ///< where the tensor data starts
    std::uint64_t file_size = 0;
    std::uint64_t data_bytes = 0;     ///< file_size - data_offset: the weights as loaded
    std::string file_type;            ///< general.file_type as a number, when the header states it
    std::uint64_t split_no = 0;       ///< split.no: this file's part of a split model, from 0
    std::uint64_t split_count = 0;    ///< split.count: the parts of a split model (0 or 1: not split)
    std::uint64_t fetched_bytes = 0;  ///< of a remote file: the bytes its range requests brought
    int requests = 0;                 ///< of a remote file: how many range requests
    /// Every tensor, in the order the header lists them (every part's); empty past 2^20 tensors.
    std::vector<GgufTensorExtent> extents;
};

/// Reads the header of the GGUF file at `path`, or at an http:// or https:// address by range
/// requests within `limits`. For the first part of a split model (llama.cpp's gguf-split, named
/// PREFIX-00001-of-0000N.gguf) it reads every part's header and sums them: tensors, sizes and
/// data. Throws GgufError, HttpError or std::runtime_error (I/O).
GgufWeights read_gguf_weights(const std::string& path, const HttpLimits& limits = {});

/// The header's metadata, key by key: integers, floats, booleans and strings as JSON scalars,
/// arrays as JSON arrays. The tokenizer's keys (tokenizer.*), which can hold hundreds of
/// thousands of strings and say nothing of the cache, are read past and not kept.
struct GgufHeader {
    GgufWeights weights;
    std::map<std::string, nlohmann::json> metadata;
};
/// How the weights were found, for an answer: "the tensor data of PATH: N tensors, the file's
/// B bytes less its H-byte header", with the parts of a split model and a remote file's requests.
std::string gguf_weights_how(const std::string& where, const GgufWeights& w);

/// Reads the header of the GGUF file (or address) at `path`, its metadata too; one part only.
/// Throws as read_gguf_weights.
GgufHeader read_gguf_header(const std::string& path, const HttpLimits& limits = {});

}  // namespace kvcat
