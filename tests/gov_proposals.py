"""x/gov proposals on a running node: a home whose votes end in seconds, and the wait for a proposal's end."""

import json

from chaind.home import Home
from chaind.pb.cosmos.gov.v1 import gov_pb2
from chaind.pb.cosmos.gov.v1 import query_pb2 as gq
from chaind.pb.cosmos.gov.v1 import query_pb2_grpc as gq_grpc
from helpers import call, until_block


def until_ended(node, pid):
    """The proposal, once a block has ended its deposit or voting period (read over gRPC)."""
    def ended(reply):
        p, _ = reply
        return p.proposal.status not in (gov_pb2.PROPOSAL_STATUS_DEPOSIT_PERIOD,
                                         gov_pb2.PROPOSAL_STATUS_VOTING_PERIOD) and p.proposal
    return until_block(node, lambda: call(node, gq_grpc.QueryStub, "Proposal", gq.QueryProposalRequest(
        proposal_id=pid)).addCallback(ended), f"proposal {pid} to end", timeout=60)


def gov_home(tmp_path):
    home = Home(tmp_path / "home")
    home.init("test", dev=True)
    doc = json.loads(home.genesis_file.read_text())
    doc["app_state"]["gov"]["params"].update(voting_period="2s", expedited_voting_period="1s")
    home.genesis_file.write_text(json.dumps(doc))
