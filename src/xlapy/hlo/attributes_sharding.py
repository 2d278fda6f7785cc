"""HLO text syntax of shardings and domains (``sharding={devices=[2,1]0,1}``).

Split from :mod:`xlapy.hlo.attributes_values` to keep modules small; the
registry in :mod:`xlapy.hlo.attributes` ties these to attribute names.
"""

from __future__ import annotations

from ..errors import InvalidArgumentError
from ..xla_data import DomainMetadata, OpMetadata, OpSharding, OpShardingType, ShardGroupType
from .attributes_text import (
    Cursor,
    parse_sub_attributes,
    quote,
)
from .attributes_values import checked, format_iota, format_metadata, parse_iota, parse_metadata

# -- sharding ------------------------------------------------------------------------

_SUBGROUP_NAMES = {
    OpShardingType.REPLICATED: "replicated",
    OpShardingType.MANUAL: "manual",
    OpShardingType.UNREDUCED: "unreduced",
}
_SUBGROUP_BY_NAME = {v: k for k, v in _SUBGROUP_NAMES.items()}
_PLAIN_SHARDINGS = {
    "replicated": OpShardingType.REPLICATED,
    "manual": OpShardingType.MANUAL,
    "unknown": OpShardingType.UNKNOWN,
    "unreduced": OpShardingType.UNREDUCED,
}
_SHARDING_WORDS = (
    "replicated",
    "manual",
    "unknown",
    "unreduced",
    "maximal",
    "last_tile_dim_replicate",
    "last_tile_dims",
    "device",
    "devices",
    "metadata",
    "shard_as",
    "shard_like",
)


def _parse_sharding_metadata(cur: Cursor) -> list[OpMetadata]:
    if cur.text.startswith("{{", cur.pos) or cur.text.startswith("{}", cur.pos):
        return cur.delimited(parse_metadata, what="metadata list")
    return [parse_metadata(cur)]


def _parse_single_sharding(cur: Cursor) -> OpSharding:
    start = cur.pos
    cur.expect("{", "'{' to start a sharding")
    if cur.peek("mesh") or cur.peek("maximal_mesh"):
        raise cur.error(
            "named (mesh-based) shardings are not supported; use the devices=[...] form"
        )
    kind: OpShardingType | None = None
    device: int | None = None
    tiled: tuple | None = None
    devices: tuple[int, ...] = ()
    last_replicate = False
    last_dims: list[OpShardingType] = []
    group: tuple[ShardGroupType, int] | None = None
    metadata: list[OpMetadata] = []
    while not cur.eat("}"):
        word = cur.keyword(
            _SHARDING_WORDS,
            "a sharding such as replicated, maximal device=0 or devices=[2,2]0,1,2,3",
        )
        if word in _PLAIN_SHARDINGS:
            kind = _PLAIN_SHARDINGS[word]
        elif word == "maximal":
            kind = OpShardingType.MAXIMAL
        elif word == "last_tile_dim_replicate":
            last_replicate = True
        elif word in ("shard_as", "shard_like"):
            group_type = ShardGroupType.AS if word == "shard_as" else ShardGroupType.LIKE
            group = (group_type, cur.nonneg_integer("a shard group id"))
        else:
            cur.expect("=", f"'=' after {word}")
            if word == "device":
                device = cur.nonneg_integer("a device id")
            elif word == "metadata":
                metadata.extend(_parse_sharding_metadata(cur))
            elif word == "last_tile_dims":
                last_dims = cur.delimited(
                    lambda c: _SUBGROUP_BY_NAME[
                        c.keyword(_SUBGROUP_BY_NAME, "replicated, manual or unreduced")
                    ],
                    what="last_tile_dims",
                )
            elif cur.text.startswith("<=", _after_brackets(cur)):
                tiled = parse_iota(cur)
            else:
                dims = tuple(
                    cur.delimited(
                        lambda c: c.nonneg_integer(), "[", "]", "tile assignment dimensions"
                    )
                )
                ids = [cur.nonneg_integer("a device id")]
                while cur.eat(","):
                    ids.append(cur.nonneg_integer("a device id"))
                tiled, devices = (dims, (), ()), tuple(ids)

    def build() -> OpSharding:
        if kind is OpShardingType.MAXIMAL:
            if device is None:
                raise InvalidArgumentError("a maximal sharding needs device=N")
            sharding = OpSharding.maximal(device, metadata)
        elif kind is not None:
            if tiled is not None or device is not None:
                raise InvalidArgumentError(f"{kind.name.lower()} shardings take no devices")
            sharding = OpSharding(kind, metadata=metadata)
        elif tiled is None:
            raise InvalidArgumentError("a tiled sharding needs devices=[...]")
        else:
            dims, reshape, perm = tiled
            sharding = OpSharding.tiled(
                dims,
                devices if devices else None,
                iota_reshape_dims=reshape,
                iota_transpose_perm=perm,
                last_tile_dim_replicate=last_replicate,
                last_tile_dims=last_dims,
                metadata=metadata,
            )
        if group is not None:
            sharding = sharding.with_shard_group(group[1], group[0])
        return sharding

    return checked(cur, start, build)


def _after_brackets(cur: Cursor) -> int:
    """Offset just after a ``[...]`` group at the cursor, without consuming it."""
    cur.skip()
    end = cur.text.find("]", cur.pos)
    return len(cur.text) if end < 0 else end + 1


def parse_sharding(cur: Cursor) -> OpSharding:
    cur.skip()
    rest = cur.text[cur.pos + 1 :].lstrip()
    if cur.text.startswith("{", cur.pos) and (rest.startswith("{") or rest.startswith("}")):
        return OpSharding.tuple(cur.delimited(_parse_single_sharding, what="tuple sharding"))
    return _parse_single_sharding(cur)


def _format_single_sharding(s: OpSharding) -> str:
    if s.type is OpShardingType.MAXIMAL:
        parts = [f"maximal device={s.tile_assignment_devices[0]}"]
    elif s.type is OpShardingType.OTHER:
        if s.is_iota:
            devices = format_iota(
                s.tile_assignment_dimensions, s.iota_reshape_dims, s.iota_transpose_perm
            )
        else:
            devices = (
                "["
                + ",".join(map(str, s.tile_assignment_dimensions))
                + "]"
                + ",".join(map(str, s.tile_assignment_devices))
            )
        parts = [f"devices={devices}"]
        if s.replicate_on_last_tile_dim:
            parts.append("last_tile_dim_replicate")
        if s.last_tile_dims:
            parts.append(
                "last_tile_dims={" + ", ".join(_SUBGROUP_NAMES[t] for t in s.last_tile_dims) + "}"
            )
    else:
        parts = [s.type.name.lower()]
    if s.is_shard_group:
        word = "shard_as" if s.shard_group_type is ShardGroupType.AS else "shard_like"
        parts.append(f"{word} {s.shard_group_id}")
    if len(s.metadata) == 1:
        parts.append("metadata=" + format_metadata(s.metadata[0]))
    elif s.metadata:
        parts.append("metadata={" + ", ".join(format_metadata(m) for m in s.metadata) + "}")
    return "{" + " ".join(parts) + "}"


def format_sharding(s: OpSharding) -> str:
    if s.type is OpShardingType.TUPLE:
        return "{" + ", ".join(_format_single_sharding(t) for t in s.tuple_shardings) + "}"
    return _format_single_sharding(s)


def parse_domain(cur: Cursor) -> DomainMetadata:
    start = cur.pos
    fields = parse_sub_attributes(
        cur, {"kind": Cursor.string, "entry": parse_sharding, "exit": parse_sharding}, "domain"
    )
    missing = [n for n in ("kind", "entry", "exit") if n not in fields]
    if missing:
        raise cur.error(f"domain needs {', '.join(missing)}", offset=start)
    return DomainMetadata(fields["kind"], fields["entry"], fields["exit"])


def format_domain(d: DomainMetadata) -> str:
    return (
        f"{{kind={quote(d.kind)}, entry={format_sharding(d.entry_sharding)}, "
        f"exit={format_sharding(d.exit_sharding)}}}"
    )
