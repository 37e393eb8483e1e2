#pragma once
// A Beast body for requests whose memory is taken as bytes arrive, and asked
// for first: Beast's string_body reserves the declared Content-Length up front,
// so a client announcing 256 MB and sending nothing held 256 MB of address
// space (and a share of the body budget) for as long as it liked.
//
// Growth doubles, bounded by the declared length, and is asked of `admit` (the
// request's share of the listener's BodyBudget) as the bytes arrive. A refusal
// stops the read with errc::not_enough_memory.

#include <boost/beast/core/buffers_range.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/optional.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>

namespace gavel::webhook {

struct BudgetedBody {
    struct value_type {
        std::string bytes;
        // Called as bytes arrive, with how much the body's memory must grow for them
        // (0: it need not); false refuses the body.
        std::function<bool(std::size_t grow)> admit;
    };

    class reader {
    public:
        template <bool isRequest, class Fields>
        reader(boost::beast::http::header<isRequest, Fields>&, value_type& body) : body_(body) {}

        void init(const boost::optional<std::uint64_t>& length, boost::beast::error_code& ec) {
            declared_ = length ? *length : 0;
            ec = {};
        }

        template <class ConstBufferSequence>
        std::size_t put(const ConstBufferSequence& buffers, boost::beast::error_code& ec) {
            std::size_t extra = boost::asio::buffer_size(buffers);
            std::string& bytes = body_.bytes;
            std::size_t size = bytes.size();
            if (extra > bytes.max_size() - size) {
                ec = boost::beast::http::error::buffer_overflow;
                return 0;
            }
            bool admitted = size + extra > bytes.capacity() ? grow(size + extra) : !body_.admit || body_.admit(0);
            if (!admitted) {
                ec = boost::system::errc::make_error_code(boost::system::errc::not_enough_memory);
                return 0;
            }
            for (auto b : boost::beast::buffers_range_ref(buffers))
                bytes.append(static_cast<const char*>(b.data()), b.size());
            ec = {};
            return extra;
        }

        void finish(boost::beast::error_code& ec) { ec = {}; }

    private:
        // To at least `needed`: double, but never beyond the declared length. A new
        // string of exactly that capacity (std::string::reserve may round up to double).
        bool grow(std::size_t needed) {
            std::string& bytes = body_.bytes;
            std::size_t target = std::max({needed, 2 * bytes.capacity(), kFirstCapacity});
            if (declared_ >= needed && declared_ < target) target = static_cast<std::size_t>(declared_);
            if (body_.admit && !body_.admit(target - charged_)) return false;
            charged_ = target;
            std::string larger;
            larger.reserve(target);
            larger.append(bytes);
            bytes.swap(larger);
            return true;
        }

        static constexpr std::size_t kFirstCapacity = 4096;
        value_type& body_;
        std::uint64_t declared_ = 0;  // 0: unknown (chunked)
        std::size_t charged_ = 0;     // capacity asked of `admit` so far
    };
};

}  // namespace gavel::webhook
