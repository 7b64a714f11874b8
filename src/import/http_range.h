// Reading a few parts of a remote file by HTTP range requests, bounded in bytes and time.
//
// A person planning a model wants its weights' size before downloading tens of gigabytes.
// A GGUF header says it, and a server that answers `Range: bytes=a-b` (Hugging Face, a plain
// web server) sends just the header. HttpRangeFile asks for the parts the GGUF reader needs
// and never more than its limits: a server that sends the whole file instead, a header larger
// than the byte cap, or an answer slower than the deadline is an error that says which.
// libcurl does the HTTP and TLS; redirects (Hugging Face's resolve/ links) are followed.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kvcat {

/// Thrown for an address kvcat cannot read: refused scheme, HTTP error, no range support,
/// a limit reached, or the network's own error (libcurl's words).
class HttpError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

struct HttpLimits {
    std::uint64_t max_bytes = std::uint64_t{64} << 20;  ///< all answers together
    std::chrono::milliseconds deadline{120'000};        ///< from the first request to the last answer
    std::chrono::milliseconds connect{20'000};          ///< for each connection
};

/// True for an address with the http:// or https:// scheme.
bool is_http_url(std::string_view s);

class HttpRangeFile {
  public:
    /// Asks for the file's first `first` bytes, which also gives its size. Throws HttpError.
    HttpRangeFile(std::string url, std::uint64_t first, HttpLimits limits = {});
    ~HttpRangeFile();
    HttpRangeFile(const HttpRangeFile&) = delete;
    HttpRangeFile& operator=(const HttpRangeFile&) = delete;

    std::uint64_t size() const { return size_; }
    /// The bytes [pos, pos + n), n > 0 and inside the file. Throws HttpError.
    std::string read(std::uint64_t pos, std::uint64_t n);
    std::uint64_t bytes_fetched() const { return fetched_; }
    int requests() const { return requests_; }
    const std::string& url() const { return url_; }

  private:
    struct Curl;
    std::string fetch(std::uint64_t pos, std::uint64_t n);

    std::string url_;
    HttpLimits limits_;
    std::unique_ptr<Curl> curl_;
    std::chrono::steady_clock::time_point start_;
    std::uint64_t size_ = 0;
    std::uint64_t fetched_ = 0;
    int requests_ = 0;
    std::string first_;  ///< the first answer, kept for the reader's first block
};

}  // namespace kvcat
