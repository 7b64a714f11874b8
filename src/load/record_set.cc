#include "load/record_set.h"

#include <utility>

namespace kvcat {

RecordSet::RecordSet(std::vector<Record> records) : records_(std::move(records)) {
    // A record whose id matches its path owns the id: a file elsewhere that claims it (a row
    // calling itself models/x) cannot take it over and break the rows that name the model.
    for (std::size_t i = 0; i < records_.size(); ++i) {
        if (!records_[i].id.empty() && records_[i].id == records_[i].path_id) by_id_.emplace(records_[i].id, i);
    }
    for (std::size_t i = 0; i < records_.size(); ++i) {
        if (!records_[i].id.empty()) by_id_.emplace(records_[i].id, i);  // no-op when already owned
    }
}

const Record* RecordSet::find(const std::string& id) const {
    auto it = by_id_.find(id);
    return it == by_id_.end() ? nullptr : &records_[it->second];
}

std::vector<Record> RecordSet::release() {
    by_id_.clear();
    return std::move(records_);
}

std::vector<std::string_view> RecordSet::ids_of(RecordKind kind) const {
    std::vector<std::string_view> out;
    for (const auto& r : records_) {
        if (r.kind == kind && !r.id.empty()) out.push_back(r.id);
    }
    return out;
}

}  // namespace kvcat
