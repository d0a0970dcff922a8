// Levenshtein distance, for "did you mean" suggestions on mistyped commands and values.
#pragma once

#include <algorithm>
#include <string_view>
#include <vector>

namespace braid::control {

inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The candidate closest to `word` when it is close enough to be a plausible typo (at most a
// third of the word's length, at least 1), else "".
inline std::string_view closest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string_view best;
  std::size_t best_distance = std::max<std::size_t>(1, (word.size() + 2) / 3) + 1;
  for (const std::string& candidate : candidates) {
    // A prefix is the most likely intent ("work" -> "workers").
    if (!word.empty() && candidate.starts_with(word)) return candidate;
    const std::size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace braid::control
