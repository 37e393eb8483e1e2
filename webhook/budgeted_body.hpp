#pragma once
// A Beast body for requests that takes the listener's body budget for the bytes
// that arrive, not for the length a client declares: with Beast's string_body
// and a budget reserved by Content-Length, clients announcing large bodies and
// sending nothing locked every other request out.
//
// `admit` is asked for each piece as it arrives (the request's share of the
// listener's BodyBudget); a refusal stops the read with errc::not_enough_memory.
// The string grows by doubling while small; past kSmall bytes received it is
// allocated at the declared length in one go, as Beast does at once: the pages of
// so large a block are mapped by the kernel only as they are written, and a
// single allocation leaves none of the intermediate sizes behind, whose freeing
// would raise glibc's mmap threshold and keep later large requests' memory in
// the heap after they are gone.

#include <boost/beast/core/buffers_range.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/optional.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <new>
#include <string>

namespace gavel::webhook {

struct BudgetedBody {
    struct value_type {
        std::string bytes;
        // Asked for each `n` bytes as they arrive; false refuses the body.
        std::function<bool(std::size_t n)> admit;
    };

    class reader {
    public:
        template <bool isRequest, class Fields>
        reader(boost::beast::http::header<isRequest, Fields>&, value_type& body) : body_(body) {}

        void init(const boost::optional<std::uint64_t>& length, boost::beast::error_code& ec) {
            if (length && *length > body_.bytes.max_size()) {
                ec = boost::beast::http::error::buffer_overflow;
                return;
            }
            declared_ = length ? static_cast<std::size_t>(*length) : 0;
            ec = {};
        }

        template <class ConstBufferSequence>
        std::size_t put(const ConstBufferSequence& buffers, boost::beast::error_code& ec) {
            std::size_t extra = boost::asio::buffer_size(buffers);
            std::string& bytes = body_.bytes;
            if (extra > bytes.max_size() - bytes.size()) {
                ec = boost::beast::http::error::buffer_overflow;
                return 0;
            }
            if (body_.admit && !body_.admit(extra)) {
                ec = boost::system::errc::make_error_code(boost::system::errc::not_enough_memory);
                return 0;
            }
            if (bytes.size() + extra > bytes.capacity()) {
                try {
                    grow(bytes.size() + extra);
                } catch (const std::bad_alloc&) {  // strict overcommit: refused like the budget's refusal
                    ec = boost::system::errc::make_error_code(boost::system::errc::not_enough_memory);
                    return 0;
                }
            }
            for (auto b : boost::beast::buffers_range_ref(buffers))
                bytes.append(static_cast<const char*>(b.data()), b.size());
            ec = {};
            return extra;
        }

        void finish(boost::beast::error_code& ec) { ec = {}; }

        static constexpr std::size_t kSmall = 64u << 10;

    private:
        // To at least `needed` (a new string of exactly that capacity: std::string::reserve
        // may round up to double).
        void grow(std::size_t needed) {
            std::string& bytes = body_.bytes;
            std::size_t target = std::max({needed, 2 * bytes.capacity(), kFirstCapacity});
            if (declared_ >= needed && (needed > kSmall || declared_ < target)) target = declared_;
            std::string larger;
            larger.reserve(target);
            larger.append(bytes);
            bytes.swap(larger);
        }

        // An admission review of a Pod is a few to a few tens of KB: most bodies fit the first
        // block (or their declared length, when below it) without regrowing, while a client that
        // trickles bytes holds at most this much beyond what it sent.
        static constexpr std::size_t kFirstCapacity = 16u << 10;
        value_type& body_;
        std::size_t declared_ = 0;  // 0: unknown (chunked)
    };
};

}  // namespace gavel::webhook
