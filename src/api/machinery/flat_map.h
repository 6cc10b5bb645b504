// FlatMap<K, V>: a sorted map kept in one vector, for the small maps every API object carries
// (metadata.labels and annotations, a container's resource requests and limits).
//
// std::map costs an empty map 48 bytes inline and each entry a 32-byte tree node header and a
// heap block of its own; an object with no labels and no annotations paid 96 bytes for them,
// and a pod's two resource requests 256 bytes of nodes. FlatMap is 24 bytes empty and its
// entries sit side by side in one block. Lookups are a binary search; an insert moves the
// entries after it, which for the maps of an API object (a handful of keys, at most a few
// hundred) is cheaper than a tree node's allocation.
//
// It reads like std::map: iteration in key order, find, at, count, contains, operator[],
// emplace, try_emplace, insert, insert_or_assign, erase, ==. Two differences:
//  - value_type is std::pair<K, V> (the key is not const: do not write it through an iterator);
//  - any insert or erase invalidates every iterator and reference into the map, as a vector's
//    do. Hold none across a write.
// Decoders read entries in whatever order the input has them: they collect them and call
// AssignUnsorted, or AppendUnordered then Normalize, so that n keys cost one sort (inserting
// them one by one in reverse order would move n²/2 entries).
#pragma once

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <utility>
#include <vector>

namespace allot::api {

template <class K, class V, class Less = std::less<>>
class FlatMap {
 public:
  using key_type = K;
  using mapped_type = V;
  using value_type = std::pair<K, V>;
  using size_type = size_t;
  using iterator = typename std::vector<value_type>::iterator;
  using const_iterator = typename std::vector<value_type>::const_iterator;

  FlatMap() = default;
  FlatMap(std::initializer_list<value_type> items) { insert(items.begin(), items.end()); }
  template <class It>
  FlatMap(It first, It last) {
    insert(first, last);
  }

  iterator begin() { return items_.begin(); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  const_iterator cbegin() const { return items_.begin(); }
  const_iterator cend() const { return items_.end(); }
  bool empty() const { return items_.empty(); }
  size_type size() const { return items_.size(); }
  void clear() { items_.clear(); }
  void reserve(size_type n) { items_.reserve(n); }

  // The first entry whose key is not less than `key`.
  template <class Q>
  iterator lower_bound(const Q& key) {
    return std::lower_bound(items_.begin(), items_.end(), key, KeyLess{});
  }
  template <class Q>
  const_iterator lower_bound(const Q& key) const {
    return std::lower_bound(items_.begin(), items_.end(), key, KeyLess{});
  }
  template <class Q>
  iterator find(const Q& key) {
    auto it = lower_bound(key);
    return it != items_.end() && !Less{}(key, it->first) ? it : items_.end();
  }
  template <class Q>
  const_iterator find(const Q& key) const {
    auto it = lower_bound(key);
    return it != items_.end() && !Less{}(key, it->first) ? it : items_.end();
  }
  template <class Q>
  size_type count(const Q& key) const {
    return find(key) != end() ? 1 : 0;
  }
  template <class Q>
  bool contains(const Q& key) const {
    return find(key) != end();
  }
  template <class Q>
  V& at(const Q& key) {
    auto it = find(key);
    if (it == end()) throw std::out_of_range("FlatMap::at");
    return it->second;
  }
  template <class Q>
  const V& at(const Q& key) const {
    auto it = find(key);
    if (it == end()) throw std::out_of_range("FlatMap::at");
    return it->second;
  }

  V& operator[](const K& key) { return try_emplace(key).first->second; }
  V& operator[](K&& key) { return try_emplace(std::move(key)).first->second; }

  // Inserts (key, V(args...)) unless `key` is present; the bool says whether it inserted.
  template <class KK, class... Args>
  std::pair<iterator, bool> try_emplace(KK&& key, Args&&... args) {
    auto it = lower_bound(key);
    if (it != items_.end() && !Less{}(key, it->first)) return {it, false};
    it = items_.emplace(it, std::piecewise_construct, std::forward_as_tuple(std::forward<KK>(key)),
                        std::forward_as_tuple(std::forward<Args>(args)...));
    return {it, true};
  }
  template <class KK, class VV>
  std::pair<iterator, bool> insert_or_assign(KK&& key, VV&& value) {
    auto [it, inserted] = try_emplace(std::forward<KK>(key), std::forward<VV>(value));
    if (!inserted) it->second = std::forward<VV>(value);
    return {it, inserted};
  }
  std::pair<iterator, bool> insert(value_type item) {
    return try_emplace(std::move(item.first), std::move(item.second));
  }
  template <class It>
  void insert(It first, It last) {
    for (; first != last; ++first) insert(value_type(first->first, first->second));
  }
  template <class... Args>
  std::pair<iterator, bool> emplace(Args&&... args) {
    return insert(value_type(std::forward<Args>(args)...));
  }

  iterator erase(const_iterator it) { return items_.erase(it); }
  iterator erase(iterator it) { return items_.erase(it); }
  template <class Q>
  size_type erase(const Q& key) {
    auto it = find(key);
    if (it == end()) return 0;
    items_.erase(it);
    return 1;
  }

  // Replaces the contents with `items`, in any order; of equal keys the last one wins (as
  // inserting them one by one with insert_or_assign would).
  void AssignUnsorted(std::vector<value_type> items) {
    items_ = std::move(items);
    Normalize();
  }
  // For decoders that see one entry at a time: appends `item` in whatever order it comes, and
  // says whether the map is still sorted (its key is above every other). Call Normalize once
  // the last entry is in when any append returned false.
  bool AppendUnordered(value_type item) {
    const bool in_order = items_.empty() || Less{}(items_.back().first, item.first);
    items_.push_back(std::move(item));
    return in_order;
  }
  // Sorts the entries by key; of equal keys the one appended last wins.
  void Normalize() {
    std::stable_sort(items_.begin(), items_.end(), [](const value_type& a, const value_type& b) {
      return Less{}(a.first, b.first);
    });
    auto out = items_.begin();
    for (auto it = items_.begin(); it != items_.end(); ++it) {
      auto next = std::next(it);
      if (next != items_.end() && !Less{}(it->first, next->first)) continue;
      if (out != it) *out = std::move(*it);
      ++out;
    }
    items_.erase(out, items_.end());
  }

  void swap(FlatMap& other) noexcept { items_.swap(other.items_); }
  friend bool operator==(const FlatMap& a, const FlatMap& b) { return a.items_ == b.items_; }
  friend bool operator<(const FlatMap& a, const FlatMap& b) { return a.items_ < b.items_; }

 private:
  struct KeyLess {
    template <class Q>
    bool operator()(const value_type& item, const Q& key) const {
      return Less{}(item.first, key);
    }
  };
  std::vector<value_type> items_;
};

}  // namespace allot::api
