#include "output/report_page.h"

#include <fmt/format.h>

#include "report_assets_data.h"

namespace kvcat {

std::string json_for_script(const nlohmann::json& value) {
    // ensure_ascii: every byte of the page outside the libraries is ASCII; the replace
    // handler: a record's text is UTF-8 already, this only guards against a stray byte.
    std::string text = value.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
    std::string out;
    out.reserve(text.size());
    for (char ch : text) {
        switch (ch) {
            case '<':
                out += "\\u003c";
                break;
            case '>':
                out += "\\u003e";
                break;
            case '&':
                out += "\\u0026";
                break;
            default:
                out += ch;
        }
    }
    return out;
}

std::string html_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char ch : text) {
        switch (ch) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += ch;
        }
    }
    return out;
}

std::string inline_script(std::string_view script) {
    std::string out;
    out.reserve(script.size());
    std::size_t start = 0;
    while (start < script.size()) {
        std::size_t end = script.find('\n', start);
        std::string_view line =
            script.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start + 1);
        if (!line.starts_with("//# sourceMappingURL=")) out += line;
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    // "</script" can only occur inside a string or a regular expression in JavaScript,
    // where "<\/script" means the same.
    std::string safe;
    safe.reserve(out.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (out[i] == '<' && i + 1 < out.size() && out[i + 1] == '/' && out.size() - i >= 8 &&
            std::equal(out.begin() + static_cast<std::ptrdiff_t>(i) + 2,
                       out.begin() + static_cast<std::ptrdiff_t>(i) + 8, "script",
                       [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; })) {
            safe += "<\\/";
            ++i;
            continue;
        }
        safe += out[i];
    }
    return safe;
}

namespace {

std::string license_block(std::string_view name, std::string_view version, std::string_view text) {
    return fmt::format("<details><summary>{} {} (BSD-3-Clause)</summary><pre>{}</pre></details>\n", name, version,
                       html_escape(text));
}

}  // namespace

std::string report_html(const nlohmann::json& content) {
    std::string title = content.value("title", std::string("kvcat report"));
    std::string page;
    page += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
    // Nothing may be fetched: the policy says so to the browser too.
    page +=
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src "
        "'unsafe-inline' "
        "'unsafe-eval'; style-src 'unsafe-inline'; img-src data: blob:; connect-src 'none'\">\n";
    page += fmt::format("<title>{}</title>\n", html_escape(title));
    page += "<style>\n";
    page += assets::kReportPageCss;
    page += "</style>\n</head>\n<body>\n";
    page += "<noscript>This report draws its charts and its table with JavaScript.</noscript>\n";
    page += "<main id=\"report\"></main>\n";
    page += "<footer id=\"licenses\"><h2>Libraries in this page</h2>\n";
    page +=
        "<p>The charts are drawn by Vega, Vega-Lite and vega-embed, carried inside this file under "
        "their "
        "licenses:</p>\n";
    page += license_block("Vega", assets::kVegaVersion, assets::kVegaLicense);
    page += license_block("Vega-Lite", assets::kVegaLiteVersion, assets::kVegaLiteLicense);
    page += license_block("vega-embed", assets::kVegaEmbedVersion, assets::kVegaEmbedLicense);
    page += "</footer>\n";
    page += "<script type=\"application/json\" id=\"report-content\">";
    page += json_for_script(content);
    page += "</script>\n";
    for (std::string_view lib : {assets::kVegaJs, assets::kVegaLiteJs, assets::kVegaEmbedJs}) {
        page += "<script>\n";
        page += inline_script(lib);
        page += "\n</script>\n";
    }
    // The planner's script defines what the page's own script calls: one element holds both.
    page += "<script>\n";
    page += inline_script(assets::kReportGraphJs);
    page += "\n";
    page += inline_script(assets::kReportPlannerJs);
    page += "\n";
    page += inline_script(assets::kReportPageJs);
    page += "\n</script>\n";
    page += "</body>\n</html>\n";
    return page;
}

}  // namespace kvcat
