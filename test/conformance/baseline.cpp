#include "test/conformance/baseline.hpp"

#include <fstream>
#include <system_error>

namespace gavel::conformance {

namespace fs = std::filesystem;

std::optional<Baseline> read_baseline(const fs::path& file, std::string& error) {
    std::ifstream in(file);
    if (!in.is_open()) {
        error = "cannot read baseline " + file.string();
        return std::nullopt;
    }
    Baseline ids;
    std::string line;
    while (std::getline(in, line)) {
        const auto first = line.find_first_not_of(" \t\r");
        if (first == std::string::npos || line[first] == '#') continue;
        const auto last = line.find_last_not_of(" \t\r");
        ids.insert(line.substr(first, last - first + 1));
    }
    if (in.bad()) {
        error = "error reading baseline " + file.string();
        return std::nullopt;
    }
    return ids;
}

bool write_baseline(const fs::path& file, const Baseline& ids, std::string& error) {
    fs::path tmp = file;
    tmp += ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out.is_open()) {
            error = "cannot write " + tmp.string();
            return false;
        }
        for (const auto& id : ids) out << id << '\n';
        out.flush();
        if (!out) {
            error = "error writing " + tmp.string();
            return false;
        }
    }
    std::error_code ec;
    fs::rename(tmp, file, ec);
    if (ec) {
        error = "cannot replace " + file.string() + ": " + ec.message();
        fs::remove(tmp, ec);
        return false;
    }
    return true;
}

}  // namespace gavel::conformance
