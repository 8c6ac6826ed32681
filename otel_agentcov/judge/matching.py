"""Maximum bipartite matching (augmenting paths), for trajectory modes over repeated calls.

Greedy first-fit can pair a broad reference entry (`search_*`) with the only call a narrower
one (`search_web`) could take; an augmenting path re-pairs it, so the answer is optimal.
"""

from __future__ import annotations

from collections.abc import Sequence


def max_matching(adjacency: Sequence[Sequence[int]], n_right: int) -> int:
    """Size of a maximum matching; `adjacency[left]` lists the right vertices it may pair with.

    Kuhn's algorithm: O(V·E), and left is a spec's reference list, so it stays small."""
    owner: list[int | None] = [None] * n_right

    def augment(left: int, seen: list[bool]) -> bool:
        for right in adjacency[left]:
            if seen[right]:
                continue
            seen[right] = True
            current = owner[right]
            if current is None or augment(current, seen):
                owner[right] = left
                return True
        return False

    return sum(augment(left, [False] * n_right) for left in range(len(adjacency)))
