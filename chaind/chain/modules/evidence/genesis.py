"""evidence's genesis: app_state.evidence.evidence, the equivocations handled (Anys, as x/evidence's
GenesisState lists them); the export lists every one kept."""

from google.protobuf import json_format

from chaind.chain.module_genesis import ModuleGenesis, to_json
from chaind.chain.modules.evidence.keeper import EQUIVOCATION_URL
from chaind.pb.cosmos.evidence.v1beta1 import evidence_pb2


def validate(section, context):
    """The Equivocations; x/evidence's ValidateGenesis: each one's ValidateBasic."""
    section = section or {}
    unknown = set(section) - {"evidence"}
    if unknown:
        raise ValueError(f"unknown fields {sorted(unknown)}")
    out = []
    for i, entry in enumerate(section.get("evidence") or ()):
        if not isinstance(entry, dict) or entry.get("@type") != EQUIVOCATION_URL:
            raise ValueError(f"evidence[{i}]: want an {EQUIVOCATION_URL}")
        try:
            found = json_format.ParseDict({k: v for k, v in entry.items() if k != "@type"},
                                          evidence_pb2.Equivocation())
        except json_format.ParseError as e:
            raise ValueError(f"evidence[{i}]: {e}") from None
        if found.height < 1 or found.power < 1 or not found.consensus_address \
                or found.time.ToNanoseconds() <= 0:
            raise ValueError(f"evidence[{i}]: invalid equivocation: height, power, time and consensus_address "
                             "must be set")
        out.append(found)
    return tuple(out)


def init_genesis(app, ctx, found):
    keeper = app.keepers["evidence"]
    for equivocation in found:
        keeper.set_evidence(ctx, equivocation)


def export_genesis(app, view):
    entries = []
    for _, packed in app.keepers["evidence"].all_evidence(view):
        entries.append({"@type": packed.type_url,
                        **to_json(evidence_pb2.Equivocation.FromString(packed.value))})
    return {"evidence": entries}


GENESIS = ModuleGenesis(default=lambda context: {"evidence": []}, validate=validate, init=init_genesis,
                        export=export_genesis)
