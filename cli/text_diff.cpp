#include "cli/text_diff.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include "support/utf8.hpp"

namespace gavel::cli {

namespace {

enum class Op { Delete, Insert, Equal };

struct Edit {
    Op op;
    std::u32string text;
};

using Edits = std::vector<Edit>;
using Runes = std::u32string;

// Text as code points (Go's []rune); bytes that are not UTF-8 become U+FFFD, as in Go.
Runes to_runes(std::string_view s) {
    Runes out;
    for (std::size_t i = 0; i < s.size();) {
        char32_t cp = 0;
        std::size_t n = support::utf8::decode(s, i, cp);
        out.push_back(n == 0 ? char32_t{0xFFFD} : cp);
        i += n == 0 ? 1 : n;
    }
    return out;
}

std::size_t common_prefix(const Runes& a, const Runes& b) {
    std::size_t n = std::min(a.size(), b.size()), i = 0;
    while (i < n && a[i] == b[i]) ++i;
    return i;
}

std::size_t common_suffix(const Runes& a, const Runes& b) {
    std::size_t n = std::min(a.size(), b.size()), i = 0;
    while (i < n && a[a.size() - 1 - i] == b[b.size() - 1 - i]) ++i;
    return i;
}

long index_of(const Runes& target, const Runes& pattern, std::size_t from) {
    if (from >= target.size() && !(from == 0 && target.empty())) return -1;
    std::size_t at = target.find(pattern, from);
    return at == Runes::npos ? -1 : static_cast<long>(at);
}

Edits diff_main(const Runes& a, const Runes& b);

Edits cleanup_merge(Edits diffs) {
    diffs.push_back({Op::Equal, {}});
    std::size_t pointer = 0, count_delete = 0, count_insert = 0;
    Runes text_delete, text_insert;
    while (pointer < diffs.size()) {
        switch (diffs[pointer].op) {
            case Op::Insert:
                ++count_insert;
                text_insert += diffs[pointer].text;
                ++pointer;
                break;
            case Op::Delete:
                ++count_delete;
                text_delete += diffs[pointer].text;
                ++pointer;
                break;
            case Op::Equal:
                if (count_delete + count_insert > 1) {
                    if (count_delete != 0 && count_insert != 0) {
                        std::size_t common = common_prefix(text_insert, text_delete);
                        if (common != 0) {
                            std::size_t x = pointer - count_delete - count_insert;
                            if (x > 0 && diffs[x - 1].op == Op::Equal) {
                                diffs[x - 1].text += text_insert.substr(0, common);
                            } else {
                                diffs.insert(diffs.begin(), Edit{Op::Equal, text_insert.substr(0, common)});
                                ++pointer;
                            }
                            text_insert = text_insert.substr(common);
                            text_delete = text_delete.substr(common);
                        }
                        common = common_suffix(text_insert, text_delete);
                        if (common != 0) {
                            diffs[pointer].text = text_insert.substr(text_insert.size() - common) + diffs[pointer].text;
                            text_insert.resize(text_insert.size() - common);
                            text_delete.resize(text_delete.size() - common);
                        }
                    }
                    std::size_t start = pointer - count_delete - count_insert;
                    diffs.erase(diffs.begin() + static_cast<long>(start),
                                diffs.begin() + static_cast<long>(start + count_delete + count_insert));
                    Edits merged;
                    if (count_delete != 0) merged.push_back({Op::Delete, text_delete});
                    if (count_insert != 0) merged.push_back({Op::Insert, text_insert});
                    diffs.insert(diffs.begin() + static_cast<long>(start), merged.begin(), merged.end());
                    pointer = start + 1;
                    if (count_delete != 0) ++pointer;
                    if (count_insert != 0) ++pointer;
                } else if (pointer != 0 && diffs[pointer - 1].op == Op::Equal) {
                    diffs[pointer - 1].text += diffs[pointer].text;
                    diffs.erase(diffs.begin() + static_cast<long>(pointer));
                } else {
                    ++pointer;
                }
                count_insert = count_delete = 0;
                text_delete.clear();
                text_insert.clear();
                break;
        }
    }
    if (diffs.back().text.empty()) diffs.pop_back();

    // Single edits between equalities slide sideways to remove an equality.
    bool changes = false;
    for (pointer = 1; pointer + 1 < diffs.size(); ++pointer) {
        if (diffs[pointer - 1].op != Op::Equal || diffs[pointer + 1].op != Op::Equal) continue;
        Runes& prev = diffs[pointer - 1].text;
        Runes& cur = diffs[pointer].text;
        Runes& next = diffs[pointer + 1].text;
        if (cur.size() >= prev.size() && cur.compare(cur.size() - prev.size(), prev.size(), prev) == 0) {
            cur = prev + cur.substr(0, cur.size() - prev.size());
            next = prev + next;
            diffs.erase(diffs.begin() + static_cast<long>(pointer - 1));
            changes = true;
        } else if (cur.compare(0, next.size(), next) == 0 && cur.size() >= next.size()) {
            prev += next;
            cur = cur.substr(next.size()) + next;
            diffs.erase(diffs.begin() + static_cast<long>(pointer + 1));
            changes = true;
        }
    }
    if (changes) return cleanup_merge(std::move(diffs));
    return diffs;
}

struct HalfMatch {
    Runes a1, b1, a2, b2, common;  // text1 before/after, text2 before/after, the common middle
};

std::optional<HalfMatch> half_match_at(const Runes& l, const Runes& s, std::size_t i) {
    Runes seed = l.substr(i, l.size() / 4);
    std::size_t best = 0;
    HalfMatch hm;
    for (long j = index_of(s, seed, 0); j != -1; j = index_of(s, seed, static_cast<std::size_t>(j) + 1)) {
        auto ju = static_cast<std::size_t>(j);
        std::size_t prefix = common_prefix(l.substr(i), s.substr(ju));
        std::size_t suffix = common_suffix(l.substr(0, i), s.substr(0, ju));
        if (best < suffix + prefix) {
            hm.common = s.substr(ju - suffix, suffix) + s.substr(ju, prefix);
            best = hm.common.size();
            hm.a1 = l.substr(0, i - suffix);
            hm.b1 = l.substr(i + prefix);
            hm.a2 = s.substr(0, ju - suffix);
            hm.b2 = s.substr(ju + prefix);
        }
    }
    if (best * 2 < l.size()) return std::nullopt;
    return hm;
}

std::optional<HalfMatch> half_match(const Runes& text1, const Runes& text2) {
    const Runes& l = text1.size() > text2.size() ? text1 : text2;
    const Runes& s = text1.size() > text2.size() ? text2 : text1;
    if (l.size() < 4 || s.size() * 2 < l.size()) return std::nullopt;
    auto hm1 = half_match_at(l, s, (l.size() + 3) / 4);
    auto hm2 = half_match_at(l, s, (l.size() + 1) / 2);
    if (!hm1 && !hm2) return std::nullopt;
    HalfMatch hm = !hm2 ? *hm1 : !hm1 ? *hm2 : (hm1->common.size() > hm2->common.size() ? *hm1 : *hm2);
    if (text1.size() > text2.size()) return hm;
    return HalfMatch{hm.a2, hm.b2, hm.a1, hm.b1, hm.common};
}

Edits bisect_split(const Runes& a, const Runes& b, std::size_t x, std::size_t y) {
    Edits out = diff_main(a.substr(0, x), b.substr(0, y));
    Edits rest = diff_main(a.substr(x), b.substr(y));
    out.insert(out.end(), rest.begin(), rest.end());
    return out;
}

// Myers' middle snake (diff-match-patch's diff_bisect).
Edits bisect(const Runes& a, const Runes& b) {
    const long n1 = static_cast<long>(a.size()), n2 = static_cast<long>(b.size());
    const long max_d = (n1 + n2 + 1) / 2, offset = max_d, length = 2 * max_d;
    std::vector<long> v1(static_cast<std::size_t>(length), -1), v2(static_cast<std::size_t>(length), -1);
    v1[static_cast<std::size_t>(offset + 1)] = 0;
    v2[static_cast<std::size_t>(offset + 1)] = 0;
    const long delta = n1 - n2;
    const bool front = delta % 2 != 0;
    long k1start = 0, k1end = 0, k2start = 0, k2end = 0;
    for (long d = 0; d < max_d; ++d) {
        for (long k1 = -d + k1start; k1 <= d - k1end; k1 += 2) {
            long k1o = offset + k1;
            long x1 = (k1 == -d || (k1 != d && v1[k1o - 1] < v1[k1o + 1])) ? v1[k1o + 1] : v1[k1o - 1] + 1;
            long y1 = x1 - k1;
            while (x1 < n1 && y1 < n2 && a[x1] == b[y1]) ++x1, ++y1;
            v1[k1o] = x1;
            if (x1 > n1) {
                k1end += 2;
            } else if (y1 > n2) {
                k1start += 2;
            } else if (front) {
                long k2o = offset + delta - k1;
                if (k2o >= 0 && k2o < length && v2[k2o] != -1 && x1 >= n1 - v2[k2o])
                    return bisect_split(a, b, static_cast<std::size_t>(x1), static_cast<std::size_t>(y1));
            }
        }
        for (long k2 = -d + k2start; k2 <= d - k2end; k2 += 2) {
            long k2o = offset + k2;
            long x2 = (k2 == -d || (k2 != d && v2[k2o - 1] < v2[k2o + 1])) ? v2[k2o + 1] : v2[k2o - 1] + 1;
            long y2 = x2 - k2;
            while (x2 < n1 && y2 < n2 && a[n1 - x2 - 1] == b[n2 - y2 - 1]) ++x2, ++y2;
            v2[k2o] = x2;
            if (x2 > n1) {
                k2end += 2;
            } else if (y2 > n2) {
                k2start += 2;
            } else if (!front) {
                long k1o = offset + delta - k2;
                if (k1o >= 0 && k1o < length && v1[k1o] != -1) {
                    long x1 = v1[k1o];
                    long y1 = offset + x1 - k1o;
                    if (x1 >= n1 - x2)
                        return bisect_split(a, b, static_cast<std::size_t>(x1), static_cast<std::size_t>(y1));
                }
            }
        }
    }
    return {{Op::Delete, a}, {Op::Insert, b}};
}

Edits compute(const Runes& a, const Runes& b) {
    if (a.empty()) return {{Op::Insert, b}};
    if (b.empty()) return {{Op::Delete, a}};
    const Runes& l = a.size() > b.size() ? a : b;
    const Runes& s = a.size() > b.size() ? b : a;
    if (std::size_t i = l.find(s); i != Runes::npos) {
        Op op = a.size() > b.size() ? Op::Delete : Op::Insert;
        return {{op, l.substr(0, i)}, {Op::Equal, s}, {op, l.substr(i + s.size())}};
    }
    if (s.size() == 1) return {{Op::Delete, a}, {Op::Insert, b}};
    if (auto hm = half_match(a, b)) {
        Edits out = diff_main(hm->a1, hm->a2);
        out.push_back({Op::Equal, hm->common});
        Edits rest = diff_main(hm->b1, hm->b2);
        out.insert(out.end(), rest.begin(), rest.end());
        return out;
    }
    return bisect(a, b);
}

Edits diff_main(const Runes& text1, const Runes& text2) {
    if (text1 == text2) {
        if (text1.empty()) return {};
        return {{Op::Equal, text1}};
    }
    std::size_t prefix = common_prefix(text1, text2);
    Runes a = text1.substr(prefix), b = text2.substr(prefix);
    std::size_t suffix = common_suffix(a, b);
    Runes tail = a.substr(a.size() - suffix);
    a.resize(a.size() - suffix);
    b.resize(b.size() - suffix);
    Edits diffs = compute(a, b);
    if (prefix != 0) diffs.insert(diffs.begin(), Edit{Op::Equal, text1.substr(0, prefix)});
    if (suffix != 0) diffs.push_back({Op::Equal, tail});
    return cleanup_merge(std::move(diffs));
}

}  // namespace

std::string pretty_diff(std::string_view old_text, std::string_view new_text) {
    std::string out;
    for (const Edit& e : diff_main(to_runes(old_text), to_runes(new_text))) {
        if (e.op == Op::Insert) out += "\x1b[32m";
        if (e.op == Op::Delete) out += "\x1b[31m";
        for (char32_t cp : e.text) support::utf8::append_code_point(out, cp);
        if (e.op != Op::Equal) out += "\x1b[0m";
    }
    return out;
}

}  // namespace gavel::cli
