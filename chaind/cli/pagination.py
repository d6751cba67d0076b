"""The SDK's pagination flags (--page, --page-key, --offset, --limit, --count-total, --reverse) of a paginated
query command, and the PageRequest they make."""

import base64

import click

from chaind.cli.common import pb


def pagination_options(f):
    for option in reversed([
        click.option("--page", type=click.IntRange(min=1), default=1, help="Page of results (sets offset)"),
        click.option("--page-key", default="", help="base64 next_key of the previous page"),
        click.option("--offset", type=click.IntRange(min=0), default=0, help="Results to skip"),
        click.option("--limit", type=click.IntRange(min=0), default=100, help="Results per page"),
        click.option("--count-total", is_flag=True, help="Count the total number of records"),
        click.option("--reverse", is_flag=True, help="Results in descending order"),
    ]):
        f = option(f)
    return f


def page_request(params):
    """The SDK's client.ReadPageRequest from the pagination flags."""
    page, offset, limit = params["page"], params["offset"], params["limit"]
    if page > 1 and offset > 0:
        raise click.UsageError("page and offset cannot be used together")
    if page > 1:
        offset = (page - 1) * limit
    try:
        key = base64.b64decode(params["page_key"], validate=True)
    except ValueError:
        raise click.BadParameter("not base64", param_hint="--page-key") from None
    return pb("cosmos.base.query.v1beta1.pagination_pb2").PageRequest(
        key=key, offset=offset, limit=limit, count_total=params["count_total"], reverse=params["reverse"])
