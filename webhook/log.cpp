#include "webhook/log.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

#include "runtime/json.hpp"

namespace gavel::webhook {

namespace {
std::mutex& output_mutex() {
    static std::mutex m;
    return m;
}

int level_rank(std::string_view level) {
    if (level == "debug") return 0;
    if (level == "info") return 1;
    if (level == "warn") return 2;
    if (level == "error") return 3;
    return -1;
}

std::atomic<int> min_level{1};  // info, as OPA's default
std::atomic<LogFormat> format{LogFormat::Json};

// logfmt: bare when it is a plain word, else quoted as JSON quotes it.
std::string text_value(const runtime::Value& v) {
    std::string s = v.is_string() ? std::string(v.as_string()) : runtime::to_json(v);
    bool plain = !s.empty() && s.find_first_of(" =\"\t\n\r\\") == std::string::npos;
    return plain ? s : runtime::to_json(runtime::Value::string(s));
}
}  // namespace

bool set_log_level(std::string_view level) {
    int rank = level_rank(level);
    if (rank < 0) return false;
    min_level = rank;
    return true;
}

bool set_log_format(std::string_view name) {
    if (name == "json") format = LogFormat::Json;
    else if (name == "json-pretty") format = LogFormat::JsonPretty;
    else if (name == "text") format = LogFormat::Text;
    else return false;
    return true;
}

bool log_enabled(std::string_view level) { return level_rank(level) >= min_level.load(std::memory_order_relaxed); }

std::string utc_timestamp() {
    auto now = std::chrono::system_clock::now();
    auto secs = std::chrono::system_clock::to_time_t(now);
    auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000;
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long long>(micros));
    return buf;
}

std::optional<std::int64_t> utc_timestamp_unix_nanos(std::string_view timestamp) {
    // "YYYY-MM-DDTHH:MM:SS.ffffffZ", as utc_timestamp() writes it.
    std::tm tm{};
    int micros = 0, used = 0;
    std::string text(timestamp);
    if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%6dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                    &tm.tm_min, &tm.tm_sec, &micros, &used) != 7 ||
        used != static_cast<int>(text.size()))
        return std::nullopt;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    return static_cast<std::int64_t>(timegm(&tm)) * 1000000000 + std::int64_t(micros) * 1000;
}

void log_line(std::string_view level, std::string_view message,
              std::initializer_list<std::pair<std::string_view, runtime::Value>> fields) {
    log_line(level, message,
             std::span<const std::pair<std::string_view, runtime::Value>>(fields.begin(), fields.size()));
}

void log_line(std::string_view level, std::string_view message,
              std::span<const std::pair<std::string_view, runtime::Value>> fields) {
    if (!log_enabled(level)) return;
    std::string line;
    LogFormat f = format.load(std::memory_order_relaxed);
    if (f == LogFormat::Text) {
        line = "time=" + utc_timestamp() + " level=" + std::string(level) +
               " msg=" + text_value(runtime::Value::string(message));
        for (const auto& [k, v] : fields) line += ' ' + std::string(k) + "=" + text_value(v);
        line.push_back('\n');
        std::lock_guard lock(output_mutex());
        std::fwrite(line.data(), 1, line.size(), stderr);
        std::fflush(stderr);
        return;
    }
    runtime::ObjectBuilder b;
    b.insert(runtime::Value::string("time"), runtime::Value::string(utc_timestamp()));
    b.insert(runtime::Value::string("level"), runtime::Value::string(level));
    b.insert(runtime::Value::string("msg"), runtime::Value::string(message));
    for (const auto& [k, v] : fields) b.insert(runtime::Value::string(k), v);
    line = f == LogFormat::JsonPretty ? runtime::to_json(b.build(), runtime::JsonStyle::Pretty)
                                      : runtime::to_json(b.build());
    line.push_back('\n');
    std::lock_guard lock(output_mutex());
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
}

void decision_log_line(const runtime::Value& entry) {
    std::string line = runtime::to_json(entry);
    line.push_back('\n');
    std::lock_guard lock(output_mutex());
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
}

}  // namespace gavel::webhook
