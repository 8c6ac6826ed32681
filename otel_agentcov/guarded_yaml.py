"""A YAML loader that refuses a document too big once its aliases are expanded.

PyYAML's safe loader shares an anchored node between its aliases, so "a billion laughs" (nine
aliases of nine aliases of ...) loads in microseconds, and then whatever walks the result (a deep
copy, a JSON Schema validation) expands it exponentially. No maintained Python YAML library
bounds this, so the composer is the hook: every node's expanded size is counted while the node
graph is composed, before a single Python object is built, under any key, known or not.
"""

from __future__ import annotations

from typing import Any

import yaml

MAX_NODES = 100_000  # scalars + collections once every alias is expanded; a spec has hundreds


class TooLarge(yaml.YAMLError):
    """The document expands past MAX_NODES nodes, or an alias refers to itself."""


class _GuardedLoader(yaml.SafeLoader):
    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._sizes: dict[int, int] = {}  # id(node) -> nodes it stands for, expanded

    def compose_node(self, parent: Any, index: Any) -> Any:
        alias = self.check_event(yaml.AliasEvent)
        node = super().compose_node(parent, index)
        size = self._sizes.get(id(node))
        if size is not None:
            return node
        if alias:  # an anchor used inside its own definition: expands forever
            raise TooLarge("an alias refers to the collection that contains it")
        if isinstance(node, yaml.SequenceNode):
            children: list[Any] = node.value
        elif isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        else:
            children = []
        size = 1 + sum(self._sizes[id(child)] for child in children)
        if size > MAX_NODES:
            raise TooLarge(f"expands to more than {MAX_NODES} nodes (aliases of aliases?)")
        self._sizes[id(node)] = size
        return node


def load(text: str) -> Any:
    """`yaml.safe_load` with the expansion bound; raises yaml.YAMLError (TooLarge included)."""
    loader = _GuardedLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()
