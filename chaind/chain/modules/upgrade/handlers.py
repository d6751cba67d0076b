"""Where this binary's upgrade handlers are registered: {plan name: handler}, as app.go's SetUpgradeHandler.

A release that runs plan "v2" adds HANDLERS["v2"] = handler; handler(app, ctx, plan, versions) runs in the
plan's block, before any other module's hooks, migrates state and returns the new {module: version}. Without a
handler for a due plan the node stops at its height (UPGRADE "v2" NEEDED) and will not start on it.
"""

HANDLERS = {}
