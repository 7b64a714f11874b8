// The rules a record file meets while it is read (src/load/yaml_loader.cc, src/load/schema.cc,
// src/load/records.cc and the walk in src/check/lint.cc): they have no record check of their own.
#include "check/rules/rules.h"

namespace kvcat::rules {

KVCAT_RULES(loader_rules) {
    static constexpr RuleInfo kRules[] = {
        RuleInfo{"file-unreadable", Severity::error,
                 "a record file could not be read (or is a directory named like one)", RuleStage::loader},
        RuleInfo{"file-too-large", Severity::error, "a record file is over 1 MiB", RuleStage::loader},
        RuleInfo{
            "file-outside-root", Severity::error,
            "a record path resolves, through a link at any level, outside the records root; the file is never opened",
            RuleStage::loader},
        RuleInfo{"file-empty", Severity::error, "a record file holds no document", RuleStage::loader},
        RuleInfo{"yaml-encoding", Severity::error, "not clean UTF-8: a NUL byte, invalid UTF-8, a byte-order mark",
                 RuleStage::loader},
        RuleInfo{"yaml-syntax", Severity::error, "the YAML does not parse", RuleStage::loader},
        RuleInfo{"yaml-duplicate-key", Severity::error, "a mapping names a key twice (both lines are named)",
                 RuleStage::loader},
        RuleInfo{"yaml-alias", Severity::error, "anchors and aliases are refused in records", RuleStage::loader},
        RuleInfo{"yaml-too-deep", Severity::error, "nesting deeper than 32 levels", RuleStage::loader},
        RuleInfo{"yaml-multiple-documents", Severity::error, "more than one document in a file", RuleStage::loader},
        RuleInfo{"record-kind", Severity::error, "a file outside `models/`, `accelerators/`, `kv-efficiency/`",
                 RuleStage::loader},
        RuleInfo{"schema-not-mapping", Severity::error, "a record or nested object is not a mapping",
                 RuleStage::loader},
        RuleInfo{"schema-missing-key", Severity::error, "a required key is absent (for a measurement: write `null`)",
                 RuleStage::loader},
        RuleInfo{"schema-type", Severity::error, "a value of the wrong type", RuleStage::loader},
        RuleInfo{"schema-unknown-key", Severity::error, "a key the schema does not define, with a did-you-mean",
                 RuleStage::loader},
        RuleInfo{"schema-enum", Severity::error, "a value outside its allowed set", RuleStage::loader},
        RuleInfo{"schema-value", Severity::error, "an impossible value: a zero or negative count, an empty string",
                 RuleStage::loader},
    };
    return kRules;
}

}  // namespace kvcat::rules
