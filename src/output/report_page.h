// The report as one HTML file that needs nothing beside it.
//
// The page carries everything it uses: the report's JSON (report.h), Vega, Vega-Lite and
// vega-embed (vendored in third_party/ and compiled into kvcat), its own small script and
// style, and the libraries' licenses. It makes no request: no font, no image, no script
// from elsewhere, so it opens the same from a disk, a CI artifact or a Pages site.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kvcat {

/// The whole page for `content` (report_content()'s document).
std::string report_html(const nlohmann::json& content);

/// JSON text safe inside a <script> element: '<', '>' and '&' are written as \u escapes, so
/// no value from a record can close the element or open a comment.
std::string json_for_script(const nlohmann::json& value);

/// Text safe between HTML tags: & < > " ' escaped.
std::string html_escape(std::string_view text);

/// A vendored script as it goes into the page: its source-map comment removed (the map is not
/// shipped, and a browser's developer tools would request it), and any "</script" written so
/// that it cannot end the element.
std::string inline_script(std::string_view script);

}  // namespace kvcat
