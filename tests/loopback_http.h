// A small HTTP/1.1 server on 127.0.0.1 for the tests of remote files: it serves named byte
// strings, answers Range requests as a web server does (or, by its mode, the ways servers
// fail), and counts what it sent. One connection at a time, closed after each answer.
// Header-only.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>

namespace kvcat::test {

class LoopbackHttp {
  public:
    enum class Mode {
        ranges,      ///< 206 and Content-Range for a Range request, 200 without one
        whole_file,  ///< 200 and the whole file, whatever was asked
        stall,       ///< reads the request and never answers
        redirect,    ///< 302 from /NAME to /moved/NAME, which is served as `ranges`
    };

    explicit LoopbackHttp(std::map<std::string, std::string> files, Mode mode = Mode::ranges)
        : files_(std::move(files)), mode_(mode) {
        listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
        if (listener_ < 0) throw std::runtime_error("socket");
        int yes = 1;
        ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        addr.sin_port = 0;
        if (::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listener_, 16) != 0) {
            ::close(listener_);
            throw std::runtime_error("bind/listen on 127.0.0.1");
        }
        socklen_t len = sizeof addr;
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
        port_ = ntohs(addr.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~LoopbackHttp() {
        stop_ = true;
        thread_.join();
        ::close(listener_);
    }
    LoopbackHttp(const LoopbackHttp&) = delete;
    LoopbackHttp& operator=(const LoopbackHttp&) = delete;

    std::string url(const std::string& name) const { return "http://127.0.0.1:" + std::to_string(port_) + "/" + name; }
    /// The body bytes sent, once every answer begun has been sent in full (or given up on): the
    /// client can have read the last byte before this thread counts it. A stalled answer, which
    /// only ends when the server stops, is waited for at most 5 s.
    std::uint64_t body_bytes_sent() const {
        for (int i = 0; i < 500 && answered_ < requests_; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        return sent_;
    }
    int requests() const { return requests_; }

  private:
    void serve() {
        while (!stop_) {
            pollfd p{listener_, POLLIN, 0};
            if (::poll(&p, 1, 50) <= 0) continue;
            int c = ::accept(listener_, nullptr, nullptr);
            if (c < 0) continue;
            int before = requests_;
            answer(c);
            ::close(c);
            if (requests_ != before) ++answered_;
        }
    }

    /// Reads the request's head (at most 16 KiB) and answers it.
    void answer(int c) {
        std::string head;
        char buf[4096];
        while (head.find("\r\n\r\n") == std::string::npos && head.size() < (16u << 10)) {
            pollfd p{c, POLLIN, 0};
            if (::poll(&p, 1, 2000) <= 0) return;
            auto n = ::recv(c, buf, sizeof buf, 0);
            if (n <= 0) return;
            head.append(buf, static_cast<std::size_t>(n));
        }
        ++requests_;
        if (mode_ == Mode::stall) {
            while (!stop_) std::this_thread::sleep_for(std::chrono::milliseconds(20));
            return;
        }
        auto sp1 = head.find(' ');
        auto sp2 = head.find(' ', sp1 + 1);
        std::string path = head.substr(sp1 + 2, sp2 - sp1 - 2);
        if (mode_ == Mode::redirect) {
            if (!path.starts_with("moved/")) {
                send_all(c, "HTTP/1.1 302 Found\r\nLocation: /moved/" + path +
                                "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                return;
            }
            path = path.substr(6);
        }
        auto file = files_.find(path);
        if (file == files_.end()) {
            send_all(c, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            return;
        }
        const std::string& body = file->second;
        auto range = head.find("\r\nRange: bytes=");
        if (range == std::string::npos || mode_ == Mode::whole_file) {
            send_all(c, "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) +
                            "\r\nConnection: close\r\n\r\n");
            send_body(c, body);
            return;
        }
        std::size_t first = std::stoull(head.substr(range + 15));
        std::size_t last = std::stoull(head.substr(head.find('-', range + 15) + 1));
        if (first >= body.size()) {
            send_all(c, "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
            return;
        }
        last = std::min(last, body.size() - 1);
        std::string part = body.substr(first, last - first + 1);
        send_all(c, "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes " + std::to_string(first) + "-" +
                        std::to_string(last) + "/" + std::to_string(body.size()) +
                        "\r\nContent-Length: " + std::to_string(part.size()) + "\r\nConnection: close\r\n\r\n");
        send_body(c, part);
    }

    void send_body(int c, const std::string& body) {
        std::size_t done = 0;
        while (done < body.size()) {
            auto n = ::send(c, body.data() + done, body.size() - done, MSG_NOSIGNAL);
            if (n <= 0) break;  // the client hung up (kvcat stops a transfer it did not ask for)
            done += static_cast<std::size_t>(n);
        }
        sent_ += done;
    }
    static void send_all(int c, const std::string& s) {
        std::size_t done = 0;
        while (done < s.size()) {
            auto n = ::send(c, s.data() + done, s.size() - done, MSG_NOSIGNAL);
            if (n <= 0) return;
            done += static_cast<std::size_t>(n);
        }
    }

    std::map<std::string, std::string> files_;
    Mode mode_;
    int listener_ = -1;
    std::uint16_t port_ = 0;
    std::thread thread_;
    std::atomic<bool> stop_{false};
    std::atomic<std::uint64_t> sent_{0};
    std::atomic<int> requests_{0};
    std::atomic<int> answered_{0};  ///< requests answered in full and their connection closed
};

}  // namespace kvcat::test
