#include "import/http_range.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <mutex>

#include <curl/curl.h>
#include <fmt/format.h>

namespace kvcat {

namespace {

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
    return s.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), s.begin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           });
}

/// One answer as it arrives: its body, bounded by `cap`, and the Content-Range of the last
/// response (a redirect's headers come first and are replaced by the final one's).
struct Answer {
    std::string body;
    std::uint64_t cap = 0;
    bool over = false;
    std::string content_range;
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
    auto* a = static_cast<Answer*>(user);
    std::size_t n = size * count;
    if (a->body.size() + n > a->cap) {
        a->over = true;
        return 0;  // libcurl stops the transfer with CURLE_WRITE_ERROR
    }
    a->body.append(data, n);
    return n;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
    auto* a = static_cast<Answer*>(user);
    std::string_view line(data, size * count);
    if (starts_with_nocase(line, "HTTP/")) a->content_range.clear();
    if (starts_with_nocase(line, "content-range:")) {
        line.remove_prefix(14);
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
        while (!line.empty() && (line.back() == '\r' || line.back() == '\n' || line.back() == ' '))
            line.remove_suffix(1);
        a->content_range = std::string(line.substr(0, 200));
    }
    return size * count;
}

bool parse_u64(std::string_view s, std::uint64_t& out) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

/// "bytes FIRST-LAST/TOTAL" (RFC 9110 14.4); false for anything else, "*" as the total included.
bool parse_content_range(std::string_view v, std::uint64_t& first, std::uint64_t& last, std::uint64_t& total) {
    if (!starts_with_nocase(v, "bytes ")) return false;
    v.remove_prefix(6);
    auto dash = v.find('-');
    auto slash = v.find('/');
    if (dash == std::string_view::npos || slash == std::string_view::npos || slash < dash) return false;
    return parse_u64(v.substr(0, dash), first) && parse_u64(v.substr(dash + 1, slash - dash - 1), last) &&
           parse_u64(v.substr(slash + 1), total) && first <= last && last < total;
}

std::string seconds(std::chrono::milliseconds ms) {
    return fmt::format("{:g} s", static_cast<double>(ms.count()) / 1000.0);
}

std::string bytes_text(std::uint64_t bytes) {
    return bytes % (1u << 20) == 0 ? fmt::format("{} MiB", bytes >> 20) : fmt::format("{} bytes", bytes);
}

}  // namespace

bool is_http_url(std::string_view s) {
    return starts_with_nocase(s, "http://") || starts_with_nocase(s, "https://");
}

struct HttpRangeFile::Curl {
    CURL* handle = nullptr;
    ~Curl() {
        if (handle) curl_easy_cleanup(handle);
    }
};

HttpRangeFile::HttpRangeFile(std::string url, std::uint64_t first, HttpLimits limits)
    : url_(std::move(url)), limits_(limits), curl_(std::make_unique<Curl>()) {
    if (!is_http_url(url_)) throw HttpError("kvcat reads remote files from http:// and https:// addresses only");
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    curl_->handle = curl_easy_init();
    if (!curl_->handle) throw HttpError("libcurl could not start a transfer");
    CURL* h = curl_->handle;
    curl_easy_setopt(h, CURLOPT_URL, url_.c_str());
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(limits_.connect.count()));
    curl_easy_setopt(h, CURLOPT_USERAGENT, "kvcat/" KVCAT_VERSION);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    start_ = std::chrono::steady_clock::now();
    first_ = fetch(0, std::clamp<std::uint64_t>(first, 1, std::max<std::uint64_t>(limits_.max_bytes, 1)));
}

HttpRangeFile::~HttpRangeFile() = default;

std::string HttpRangeFile::read(std::uint64_t pos, std::uint64_t n) {
    if (n == 0 || pos > size_ || n > size_ - pos) {
        throw HttpError(fmt::format("bytes {} to {} are outside the file's {} bytes", pos, pos + n, size_));
    }
    if (pos + n <= first_.size()) return first_.substr(static_cast<std::size_t>(pos), static_cast<std::size_t>(n));
    return fetch(pos, n);
}

std::string HttpRangeFile::fetch(std::uint64_t pos, std::uint64_t n) {
    if (fetched_ > limits_.max_bytes || n > limits_.max_bytes - fetched_) {
        throw HttpError(fmt::format("reading the header would take more than {}, the most kvcat reads of a remote file",
                                    bytes_text(limits_.max_bytes)));
    }
    auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start_);
    auto left = limits_.deadline - spent;
    if (left.count() <= 0) {
        throw HttpError(fmt::format("no header within {}, kvcat's limit for a remote file", seconds(limits_.deadline)));
    }
    CURL* h = curl_->handle;
    Answer a;
    a.cap = n;
    std::string range = fmt::format("{}-{}", pos, pos + n - 1);
    curl_easy_setopt(h, CURLOPT_RANGE, range.c_str());
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(left.count()));
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &a);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &a);
    char error[CURL_ERROR_SIZE] = {};
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error);
    ++requests_;
    CURLcode rc = curl_easy_perform(h);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
    fetched_ += a.body.size();
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    if (a.over && status == 200) {
        throw HttpError(
            "the server sent the whole file, not the part asked for: it does not answer range requests, "
            "so kvcat cannot read the header alone; download the file and give its path");
    }
    if (rc == CURLE_OPERATION_TIMEDOUT) {
        throw HttpError(fmt::format("no header within {}, kvcat's limit for a remote file", seconds(limits_.deadline)));
    }
    if (a.over) throw HttpError(fmt::format("the server sent more than the {} bytes asked for", n));
    if (rc != CURLE_OK) throw HttpError(error[0] ? std::string(error) : std::string(curl_easy_strerror(rc)));
    if (status == 200 && pos == 0) {  // a server that ignores Range on a file shorter than the part asked
        size_ = a.body.size();
        return std::move(a.body);
    }
    if (status != 206) {
        throw HttpError(fmt::format("HTTP {} for bytes {}-{}, where kvcat expected 206 (Partial Content)", status, pos,
                                    pos + n - 1));
    }
    std::uint64_t first = 0;
    std::uint64_t last = 0;
    std::uint64_t total = 0;
    if (!parse_content_range(a.content_range, first, last, total)) {
        throw HttpError(
            fmt::format("the server's Content-Range \"{}\" is not bytes FIRST-LAST/TOTAL", a.content_range));
    }
    if (first != pos || a.body.size() != last - first + 1 || (requests_ > 1 && total != size_)) {
        throw HttpError(fmt::format("the server sent bytes {}-{} of {} ({} bytes), where kvcat asked for {}-{} of {}",
                                    first, last, total, a.body.size(), pos, pos + n - 1, size_));
    }
    size_ = total;
    return std::move(a.body);
}

}  // namespace kvcat
