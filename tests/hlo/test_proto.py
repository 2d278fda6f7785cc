"""HloModule <-> XLA's HloModuleProto, checked against XLA itself (jaxlib) on the corpus."""

from __future__ import annotations

import glob
import mmap
import os

import pytest

from xlapy.errors import InvalidArgumentError, ParseError, UnimplementedError
from xlapy.hlo import HloModule, parse_module
from xlapy.hlo.proto import message_class, schema

pytest.importorskip("google.protobuf")
pytest.importorskip("jax")
from jax._src.lib import xla_client as xc  # noqa: E402  (after the skip: jax is optional)

ROOT = os.path.join(os.path.dirname(__file__), "..", "data")
CORPUS = (
    sorted(
        f
        for f in glob.glob(os.path.join(ROOT, "hlo_corpus", "*.hlo"))
        if ".opt." not in f and ".verbose." not in f
    )
    + sorted(glob.glob(os.path.join(ROOT, "jax_corpus", "*.hlo")))
    + sorted(glob.glob(os.path.join(ROOT, "hlo", "*.hlo")))
)

# Modules where one check cannot hold, with the reason (docs/protos.md, "Known differences").
KNOWN = {
    # XLA's own text parser does not keep these constants' bits (-0 and complex NaN
    # imaginary parts): XLA prints its bytes and ours differently, ours are xlapy's exact values.
    "special_constants.hlo": "xla-constants",
    "linalg_matfuncs_c64.hlo": "xla-constants",
    "linalg_matfuncs_c128.hlo": "xla-constants",
}


def _xla_print(module) -> str:
    options = xc.hlo.HloPrintOptions()
    options.print_large_constants = True
    return module.to_string(options)


def _first_difference(a: str, b: str) -> str:
    for x, y in zip(a.splitlines(), b.splitlines(), strict=False):
        if x != y:
            return f"\n  ours: {x[:300]}\n  XLA:  {y[:300]}"
    return f"(line counts {len(a.splitlines())} vs {len(b.splitlines())})"


@pytest.mark.parametrize("path", CORPUS, ids=os.path.basename)
def test_corpus_module_against_xla(path: str) -> None:
    name = os.path.basename(path)
    text = open(path).read()
    jax_bytes = xc.hlo.hlo_module_from_text(text).as_serialized_hlo_module_proto()
    loaded = xc.hlo.HloModule.from_serialized_hlo_module_proto
    xla_text = _xla_print(loaded(jax_bytes))
    # (1) XLA's bytes read into the module XLA's text of them describes.
    ours = HloModule.from_proto(jax_bytes)
    expected = parse_module(xla_text)
    assert ours.equals(expected), f"{name}: {_first_difference(ours.to_text(), expected.to_text())}"
    # (2) our bytes load in XLA and print as XLA prints the original.
    our_bytes = parse_module(text).to_proto_bytes(drop_config=True)
    back = _xla_print(loaded(our_bytes))
    if KNOWN.get(name) == "xla-constants":
        assert [
            x
            for x, y in zip(back.splitlines(), xla_text.splitlines(), strict=True)
            if x != y and " constant(" not in x
        ] == []
    else:
        assert back == xla_text, f"{name}: {_first_difference(back, xla_text)}"
    # (3) our own round trip.
    again = HloModule.from_proto(ours.to_proto())
    assert again.equals(ours)


def _embedded_descriptor(name: str):
    """jaxlib's own FileDescriptorProto of ``name``, as compiled into libjax_common.so."""
    import jaxlib
    from google.protobuf import descriptor_pb2

    library = os.path.join(os.path.dirname(jaxlib.__file__), "libjax_common.so")
    key = b"\n" + bytes([len(name)]) + name.encode()
    with open(library, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        pos = m.find(key)
        while pos >= 0:
            end = _descriptor_end(m, pos)
            parsed = descriptor_pb2.FileDescriptorProto()
            try:
                parsed.ParseFromString(m[pos:end])
                if parsed.message_type:
                    return parsed
            except Exception:  # noqa: BLE001  (not the descriptor: keep looking)
                pass
            pos = m.find(key, pos + 1)
    pytest.skip(f"{name}'s descriptor is not embedded in this jaxlib")


def _descriptor_end(data, start: int) -> int:
    """Where the top-level fields (1..14) of a serialized FileDescriptorProto stop."""

    def varint(i: int) -> tuple[int, int]:
        value = shift = 0
        while True:
            byte = data[i]
            i += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value, i

    i = start
    while True:
        tag, j = varint(i)
        field, wire = tag >> 3, tag & 7
        if not 1 <= field <= 14 or wire not in (0, 2):
            return i
        if wire == 0:
            _, j = varint(j)
        else:
            length, j = varint(j)
            j += length
        i = j


def _fields(file) -> dict:
    out = {}

    def walk(message, prefix):
        for nested in message.nested_type:
            walk(nested, prefix + message.name + ".")
        for enum in message.enum_type:
            out[prefix + message.name + "." + enum.name] = sorted(
                (v.name, v.number) for v in enum.value
            )
        for f in message.field:
            out[prefix + message.name + "." + f.name] = (f.number, f.type, f.label, f.type_name)

    for message in file.message_type:
        walk(message, "")
    for enum in file.enum_type:
        out[enum.name] = sorted((v.name, v.number) for v in enum.value)
    return out


@pytest.mark.parametrize("file_name", [schema.XLA_DATA_FILE, schema.HLO_FILE])
def test_schema_matches_jaxlib_field_for_field(file_name: str) -> None:
    from google.protobuf import descriptor_pb2

    reference = _fields(_embedded_descriptor(file_name))
    ours_file = descriptor_pb2.FileDescriptorProto()
    schema.pool().FindFileByName(file_name).CopyToProto(ours_file)
    ours = _fields(ours_file)
    mismatched = {k: (reference.get(k), v) for k, v in ours.items() if reference.get(k) != v}
    assert mismatched == {}
    assert len(ours) > 150 if file_name == schema.XLA_DATA_FILE else len(ours) > 150


def _simple_proto():
    module = parse_module(
        "HloModule m\n\nENTRY e {\n  p = f32[2]{0} parameter(0)\n  ROOT n = f32[2]{0} negate(p)\n}\n"
    )
    return module.to_proto()


def test_bad_opcode_is_refused_naming_it() -> None:
    proto = _simple_proto()
    proto.computations[0].instructions[1].opcode = "frobnicate"
    with pytest.raises(InvalidArgumentError, match="unknown opcode 'frobnicate'"):
        HloModule.from_proto(proto)


def test_missing_operand_id_is_refused() -> None:
    proto = _simple_proto()
    proto.computations[0].instructions[1].operand_ids[0] = 12345
    with pytest.raises(InvalidArgumentError, match="operand id 12345 is not defined"):
        HloModule.from_proto(proto)


def test_unknown_field_and_unsupported_field_are_refused() -> None:
    proto = _simple_proto()
    data = proto.SerializeToString() + b"\xa8\x06\x01"  # field 101, a varint: unknown to XLA
    with pytest.raises(UnimplementedError, match="101"):
        HloModule.from_proto(data)
    proto.computations[0].instructions[1].k = 3  # top-k's field on a negate
    with pytest.raises(UnimplementedError, match="fields k are set on a negate"):
        HloModule.from_proto(proto)


def test_garbage_bytes_and_wrong_literal_size() -> None:
    with pytest.raises(ParseError):
        HloModule.from_proto(b"\xff\xff\xff")
    module = parse_module("HloModule m\n\nENTRY e {\n  ROOT c = f32[3]{0} constant({1, 2, 3})\n}\n")
    proto = module.to_proto()
    del proto.computations[0].instructions[0].literal.f32s[-1]
    with pytest.raises(
        InvalidArgumentError, match=r"f32\[3\].* holds 2 values in f32s; the shape needs 3"
    ):
        HloModule.from_proto(proto)


def test_config_outside_the_proto_is_refused_unless_dropped() -> None:
    module = parse_module(
        "HloModule m, num_partitions=2\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n"
    )
    with pytest.raises(UnimplementedError, match="num_partitions=2"):
        module.to_proto()
    assert module.to_proto(drop_config=True).name == "m"


def test_message_class_names_the_pool() -> None:
    assert message_class("xla.LiteralProto").DESCRIPTOR.full_name == "xla.LiteralProto"
