// All records of one run, indexed by id: what a rule judges a record against, and what the
// catalog, the report and the planner read.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "load/records.h"

namespace kvcat {

/// All records of one run, indexed by id.
class RecordSet {
  public:
    explicit RecordSet(std::vector<Record> records);
    const std::vector<Record>& records() const { return records_; }
    /// The first record with this id, or nullptr.
    const Record* find(const std::string& id) const;
    /// Ids of every record of one kind, for did-you-mean.
    std::vector<std::string_view> ids_of(RecordKind kind) const;
    /// Hands the records over, leaving the set empty.
    std::vector<Record> release();

  private:
    std::vector<Record> records_;
    std::map<std::string, std::size_t, std::less<>> by_id_;
};

}  // namespace kvcat
