// numbers.range, numbers.range_step, bits.*, rand.intn: integer builtins that
// work on integers of any size (OPA uses math/big), with OPA's operand errors.

#include <climits>
#include <random>

#include <fmt/format.h>

#include "runtime/bigint.hpp"
#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

namespace {

using runtime::BigInt;

// Space reserved up front for a range; a longer one grows as it is generated,
// so that its size is bounded by the evaluation's deadline and memory limit (as
// OPA's, which has no length limit), not by one allocation.
constexpr std::int64_t kRangeReserve = 1 << 16;
// Left shifts beyond this many bits are refused (the result would be megabytes).
constexpr std::uint64_t kMaxShiftBits = 1 << 20;

// OPA's BigIntOperand: an integral number, or "integer" / floating-point errors.
std::optional<BigInt> integer_operand(const Value& v, std::size_t pos, BuiltinResult& err) {
    if (!v.is_number()) {
        err = type_error(pos, "integer", v);
        return std::nullopt;
    }
    auto big = runtime::to_big_int(v.as_number());
    if (!big) {
        err = BuiltinResult::type_error(
            fmt::format("operand {} must be integer number but got floating-point number", pos));
        return std::nullopt;
    }
    return big;
}

Value big_value(const BigInt& b) { return Value::number(runtime::number_from_big(b)); }

// numbers.range(_step): inclusive, ascending or descending by `step`.
BuiltinResult make_range(const BigInt& from, const BigInt& to, const BigInt& step, BuiltinContext& ctx) {
    BigInt span = to >= from ? BigInt(to - from) : BigInt(from - to);
    BigInt count = span / step + 1;
    // More elements than an int64 counts could never be held anyway.
    if (count > INT64_MAX) return BuiltinResult::error("range too large");
    auto n = count.convert_to<std::int64_t>();
    runtime::ArrayBuilder b(static_cast<std::size_t>(std::min(n, kRangeReserve)));
    BigInt signed_step = to >= from ? step : BigInt(-step);
    BigInt x = from;
    for (std::int64_t i = 0; i < n; ++i, x += signed_step)
        if (!b.push_back(big_value(x), ctx)) return BuiltinResult::cancelled();
    return array_result(std::move(b), ctx);
}

template <typename Op>
BuiltinImpl bitwise(Op op) {
    return [op](Args a, BuiltinContext&) {
        BuiltinResult err;
        auto x = integer_operand(a[0], 1, err);
        if (!x) return err;
        auto y = integer_operand(a[1], 2, err);
        if (!y) return err;
        return BuiltinResult::of(big_value(op(*x, *y)));
    };
}

// OPA's UintOperand, for shift counts.
std::optional<std::uint64_t> shift_operand(const Value& v, BuiltinResult& err) {
    if (!v.is_number()) {
        err = type_error(2, "number", v);
        return std::nullopt;
    }
    auto big = runtime::to_big_int(v.as_number());
    if (!big) {
        err = BuiltinResult::type_error("operand 2 must be integer number but got floating-point number");
        return std::nullopt;
    }
    if (*big < 0) {
        err = BuiltinResult::type_error("operand 2 must be an unsigned integer number but got a negative integer");
        return std::nullopt;
    }
    if (*big > kMaxShiftBits) return std::uint64_t(kMaxShiftBits) + 1;
    return big->convert_to<std::uint64_t>();
}

// Go's big.Int.Rsh: an arithmetic shift (rounds toward negative infinity).
BigInt shift_right(const BigInt& x, std::uint64_t n) {
    if (x >= 0) return x >> n;
    return -((BigInt(-x) - 1) >> n) - 1;
}

std::mt19937_64& thread_rng() {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    return rng;
}

}  // namespace

void register_numbers(Registry& r) {
    declare(r, "numbers.range", 2, [](Args a, BuiltinContext& ctx) {
        BuiltinResult err;
        auto from = integer_operand(a[0], 1, err);
        if (!from) return err;
        auto to = integer_operand(a[1], 2, err);
        if (!to) return err;
        return make_range(*from, *to, 1, ctx);
    });
    declare(r, "numbers.range_step", 3, [](Args a, BuiltinContext& ctx) {
        BuiltinResult err;
        auto from = integer_operand(a[0], 1, err);
        if (!from) return err;
        auto to = integer_operand(a[1], 2, err);
        if (!to) return err;
        auto step = integer_operand(a[2], 3, err);
        if (!step) return err;
        if (*step <= 0) return BuiltinResult::error("step must be a positive integer");
        return make_range(*from, *to, *step, ctx);
    });

    declare(r, "bits.and", 2, bitwise([](const BigInt& x, const BigInt& y) { return BigInt(x & y); }));
    declare(r, "bits.or", 2, bitwise([](const BigInt& x, const BigInt& y) { return BigInt(x | y); }));
    declare(r, "bits.xor", 2, bitwise([](const BigInt& x, const BigInt& y) { return BigInt(x ^ y); }));
    declare(r, "bits.negate", 1, [](Args a, BuiltinContext&) {
        BuiltinResult err;
        auto x = integer_operand(a[0], 1, err);
        if (!x) return err;
        return BuiltinResult::of(big_value(-*x - 1));  // two's complement NOT
    });
    declare(r, "bits.lsh", 2, [](Args a, BuiltinContext&) {
        BuiltinResult err;
        auto x = integer_operand(a[0], 1, err);
        if (!x) return err;
        auto n = shift_operand(a[1], err);
        if (!n) return err;
        if (*x == 0) return BuiltinResult::of(Value::integer(0));
        if (*n > kMaxShiftBits) return BuiltinResult::error("shift too large");
        return BuiltinResult::of(big_value(BigInt(*x << *n)));
    });
    declare(r, "bits.rsh", 2, [](Args a, BuiltinContext&) {
        BuiltinResult err;
        auto x = integer_operand(a[0], 1, err);
        if (!x) return err;
        auto n = shift_operand(a[1], err);
        if (!n) return err;
        if (*n > kMaxShiftBits) return BuiltinResult::of(Value::integer(*x < 0 ? -1 : 0));
        return BuiltinResult::of(big_value(shift_right(*x, *n)));
    });

    Builtin intn;
    intn.name = "rand.intn";
    intn.arity = 2;
    intn.impl = [](Args a, BuiltinContext& ctx) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        if (!a[1].is_number()) return type_error(2, "number", a[1]);
        std::int64_t n = 0;
        if (!a[1].as_int64(n) || n == INT64_MIN)
            return BuiltinResult::type_error("operand 2 must be integer number but got floating-point number");
        if (n == 0) return BuiltinResult::of(Value::integer(0));
        if (n < 0) n = -n;
        // Same string and bound in one query: the same number.
        std::string key = fmt::format("rand.intn\x1f{}-{}", a[0].as_string(), n);
        if (auto it = ctx.memo.find(key); it != ctx.memo.end()) return BuiltinResult::of(it->second);
        std::uniform_int_distribution<std::int64_t> dist(0, n - 1);
        Value v = Value::integer(dist(thread_rng()));
        ctx.memo.emplace(std::move(key), v);
        return BuiltinResult::of(v);
    };
    r.add(std::move(intn));
}

}  // namespace gavel::stdlib
