// The links the report page makes to record files. A record's file name is untrusted text:
// written into an href as it is, `javascript:x.yaml` is a script and `java<TAB>script:...`
// one too once the browser drops the tab. So a path is percent-encoded (a name is always a
// path, never a scheme, a host or a query), and a link is kept only when, read as the
// browser's URL parser reads it (leading and trailing C0 controls and spaces stripped, tabs
// and line breaks removed: the WHATWG URL standard's basic URL parser), it is an http: or
// https: address or a relative path that stays on the page's host. report_page.js applies
// the same test (safeHref) to every link it draws.
#pragma once

#include <string>
#include <string_view>

namespace kvcat {

/// `path` with every byte but A-Z a-z 0-9 - . _ ~ and / written as %XX.
std::string percent_encode_path(std::string_view path);

/// `href` as a browser's URL parser starts from: leading and trailing C0 controls and spaces
/// stripped, every tab, line feed and carriage return removed.
std::string browser_normalised(std::string_view href);

/// Whether `href` may be a link's target: after browser_normalised, an http: or https:
/// address, or a relative path that does not start with / or \ (another host or the disk's
/// root); never one holding a control character or a backslash.
bool is_safe_link(std::string_view href);

}  // namespace kvcat
