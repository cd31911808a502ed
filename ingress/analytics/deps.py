"""The analytics room's own request dependencies: ``InlineQueriesDep``."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from ingress.analytics.inline_queries import InlineQueries


async def get_inline_queries(request: Request) -> InlineQueries:
    inline: InlineQueries = request.app.state.inline
    return inline


# Short queries run in the ingress while their caller waits (ingress/analytics/inline_queries.py).
InlineQueriesDep = Annotated[InlineQueries, Depends(get_inline_queries)]
