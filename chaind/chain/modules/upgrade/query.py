"""cosmos.upgrade.v1beta1.Query: the scheduled plan, applied plans, module versions, the authority."""

from chaind import errors
from chaind.chain import authority
from chaind.chain.queries import Reader, query
from chaind.pb.cosmos.upgrade.v1beta1 import query_pb2, query_pb2_grpc, upgrade_pb2


class UpgradeQuery(Reader, query_pb2_grpc.QueryServicer):
    @property
    def keeper(self):
        return self.app.keepers["upgrade"]

    @query(inline=True)
    def CurrentPlan(self, request, view):
        return query_pb2.QueryCurrentPlanResponse(plan=self.keeper.plan(view))

    @query(inline=True)
    def AppliedPlan(self, request, view):
        return query_pb2.QueryAppliedPlanResponse(height=self.keeper.done_height(view, request.name))

    @query(inline=True)
    def UpgradedConsensusState(self, request, view):
        # Only an IBC client upgrade stores one, and this chain has no IBC: never found, as the SDK answers then.
        raise errors.not_found("upgraded consensus state not found")

    @query(inline=True)
    def ModuleVersions(self, request, view):
        versions = self.keeper.module_versions(view)
        if request.module_name:
            if request.module_name not in versions:
                raise errors.not_found(f"x/upgrade: QueryModuleVersions module {request.module_name} not found: "
                                       "not found")
            versions = {request.module_name: versions[request.module_name]}
        return query_pb2.QueryModuleVersionsResponse(module_versions=[
            upgrade_pb2.ModuleVersion(name=name, version=version) for name, version in sorted(versions.items())])

    @query(inline=True)
    def Authority(self, request, view):
        return query_pb2.QueryAuthorityResponse(address=self.app.keepers["bank"].bech32(authority.GOV))
