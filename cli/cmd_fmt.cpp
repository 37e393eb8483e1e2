// gavel fmt [PATH...|-] [-l] [-d] [-w] [--fail] [--v0-compatible] [--v0-v1] ...
// formats Rego as `opa fmt` does and with its flags, messages and exit statuses:
// no path (or `-`) formats stdin to stdout; directories are walked for .rego
// files in lexical order; the first error stops the walk with status 2.

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "cli/commands.hpp"
#include "cli/text_diff.hpp"
#include "engine/directory_walk.hpp"
#include "runtime/file_read.hpp"
#include "engine/format.hpp"
#include "lang/parse.hpp"

namespace gavel::cli {

namespace {

namespace fs = std::filesystem;

struct FmtOptions {
    std::vector<std::string> paths;
    bool write = false;
    bool list = false;
    bool diff = false;
    bool fail = false;
    bool v0_compatible = false;
    bool v0_v1 = false;
    bool v1_compatible = false;
    bool check_result = true;
    bool drop_v0_imports = false;
};

// A failure that ends the run: its message and status (OPA's fmtError).
struct FmtError {
    std::string message;
    int status = 2;
};

engine::FormatOptions format_options(const FmtOptions& o) {
    engine::FormatOptions f;
    // As OPA: --v0-v1 wins over --v0-compatible, which wins over --v1-compatible.
    if (o.v0_v1) {
        f.target = engine::FormatTarget::V0CompatV1;
        f.parse_v0 = !o.v1_compatible;
    } else if (o.v0_compatible) {
        f.target = engine::FormatTarget::V0;
        f.parse_v0 = true;
    } else {
        f.target = engine::FormatTarget::V1;
    }
    if (o.v0_compatible) f.parse_v0 = true;
    f.drop_v0_imports = o.drop_v0_imports;
    return f;
}

std::optional<FmtError> format_file(const FmtOptions& o, const std::string& path) {
    runtime::FileRead read = runtime::read_whole_file(path);
    if (!read.ok) return FmtError{"failed to open file: " + read.message};
    const std::string contents = std::move(read.text);

    auto result = engine::format_rego(path, contents, format_options(o));
    if (!result.ok()) return FmtError{"failed to format Rego source file: " + result.diagnostics.opa_text()};
    const std::string& formatted = *result.text;

    if (o.check_result) {
        lang::ParseOptions check;
        check.v0_compatible = format_options(o).target == engine::FormatTarget::V0;
        auto reparsed = lang::parse_module("formatted", formatted, check);
        if (!reparsed.ok())
            return FmtError{
                path + " was successfully formatted, but the result is invalid: " + reparsed.diagnostics.opa_text() +
                "\n\nTo inspect the formatted Rego, you can turn off this check with --check-result=false."};
    }

    const bool changed = contents != formatted;
    if (o.fail && !o.list && !o.diff && changed) return FmtError{"unexpected diff"};
    if (o.list) {
        if (changed) {
            std::cout << path << "\n";
            if (o.fail) return FmtError{"unexpected diff"};
        }
        return std::nullopt;
    }
    if (o.diff) {
        if (changed) {
            std::cout << pretty_diff(contents, formatted) << "\n";
            if (o.fail) return FmtError{"unexpected diff"};
        }
        return std::nullopt;
    }
    if (o.write) {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        if (!out)
            return FmtError{"failed to open file for writing: open " + path + ": " + runtime::go_errno_text(errno)};
        out << formatted;
        return std::nullopt;
    }
    std::cout << formatted;
    return std::nullopt;
}

// Go's filepath.Walk: the path itself, then a directory's entries in lexical order, depth first.
std::optional<FmtError> walk(const FmtOptions& o, const std::string& path) {
    std::error_code ec;
    auto status = fs::symlink_status(path, ec);
    if (ec || !fs::exists(status)) return FmtError{"lstat " + path + ": no such file or directory", 1};
    if (fs::is_directory(status)) {
        std::vector<std::string> names;
        for (const auto& entry : fs::directory_iterator(path, ec)) names.push_back(entry.path().filename().string());
        std::sort(names.begin(), names.end());
        for (const auto& name : names) {
            std::string child = path;
            if (!child.empty() && child.back() != '/') child += '/';
            child += name;
            if (auto err = walk(o, child)) return err;
        }
        return std::nullopt;
    }
    if (fs::path(path).extension() != ".rego") return std::nullopt;
    return format_file(o, path);
}

int run_fmt(const FmtOptions& o) {
    if (o.paths.empty() || (o.paths.size() == 1 && o.paths[0] == "-")) {
        runtime::FileRead read = runtime::read_whole_stream(STDIN_FILENO, "stdin");
        if (!read.ok) {
            std::cerr << read.message << "\n";
            return 1;
        }
        auto result = engine::format_rego("stdin", std::move(read.text), format_options(o));
        if (!result.ok()) {
            std::cerr << result.diagnostics.opa_text() << "\n";
            return 1;
        }
        std::cout << *result.text;
        return 0;
    }
    for (const auto& path : o.paths) {
        // As OPA's fileurl.Clean: a file:// URL names a path.
        std::string clean = path.starts_with("file://") ? path.substr(7) : path;
        if (auto err = walk(o, clean)) {
            std::cerr << err->message << "\n";
            return err->status;
        }
    }
    return 0;
}

}  // namespace

void add_fmt_command(CLI::App& app) {
    auto opts = std::make_shared<FmtOptions>();
    auto* cmd = app.add_subcommand("fmt", "Format Rego source files");
    cmd->add_option("path", opts->paths, "Files or directories to format (none, or -, for stdin)");
    cmd->add_flag("-w,--write", opts->write, "overwrite the original source file");
    cmd->add_flag("-l,--list", opts->list, "list all files who would change when formatted");
    cmd->add_flag("-d,--diff", opts->diff, "only display a diff of the changes");
    cmd->add_flag("--fail", opts->fail, "non zero exit code on reformat");
    cmd->add_flag("--v0-v1,--rego-v1", opts->v0_v1, "format module(s) to be compatible with both Rego v0 and v1");
    cmd->add_flag("--v0-compatible", opts->v0_compatible,
                  "opt-in to OPA features and behaviors prior to the OPA v1.0 release");
    cmd->add_flag("--v1-compatible", opts->v1_compatible,
                  "opt-in to OPA features and behaviors that are enabled by default in OPA v1.0");
    cmd->add_option("--check-result", opts->check_result,
                    "assert that the formatted code is valid and can be successfully parsed")
        ->default_str("true")
        ->expected(0, 1)
        ->default_val(true);
    cmd->add_flag("--drop-v0-imports", opts->drop_v0_imports,
                  "drop v0 imports from the formatted code, such as 'rego.v1' and 'future.keywords'");
    cmd->callback([opts] { exit_status() = run_fmt(*opts); });
}

}  // namespace gavel::cli
