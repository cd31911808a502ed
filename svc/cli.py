"""The one command, ``svc``: its role comes from the subcommand."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from pydantic import BaseModel, ValidationError
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session

from schemas.admin import GrantSpec, ResourceSpec
from schemas.enums import AccessLevel, HandlerType
from schemas.settings import Settings
from sinks.db import resources, tenancy
from sinks.db.engine import make_engine, make_sessions
from sinks.db.migrate import upgrade
from sinks.exceptions import SinkError
from svc import logs


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="svc", description="Webhooks, scheduled events and analytics tables."
    )
    roles = parser.add_subparsers(dest="role", required=True)
    roles.add_parser(
        "up", help="run the whole stack on this machine (embedded broker unless one is configured)"
    )
    roles.add_parser("ingress", help="run the HTTP ingress (needs SVC_KAFKA_BOOTSTRAP)")
    roles.add_parser("worker", help="run one Faust worker (needs SVC_KAFKA_BOOTSTRAP)")
    roles.add_parser("migrate", help="apply the metadata DB migrations and exit")

    admin = roles.add_parser("admin", help="manage companies, users, handler resources and grants")
    actions = admin.add_subparsers(dest="action", required=True)
    company = actions.add_parser("create-company", help="a company, its primary admin and the admin's keys")
    company.add_argument("--name", required=True)
    company.add_argument("--admin-email", required=True)
    user = actions.add_parser("create-user", help="a user of a company and the user's keys")
    user.add_argument("--company-id", required=True)
    user.add_argument("--email", required=True)
    user.add_argument(
        "--admin", action="store_true", help="make the user a company admin (ADMIN on everything)"
    )
    resource = actions.add_parser(
        "create-resource", help="register an agent, tool or manager and its endpoint"
    )
    resource.add_argument("--company-id", required=True)
    resource.add_argument("--type", required=True, choices=[kind.value for kind in HandlerType])
    resource.add_argument("--name", required=True)
    resource.add_argument("--endpoint", required=True, help="http(s)://... (JSON POST) or kafka://<topic>")
    grant = actions.add_parser("grant", help="set a user's access level on a resource")
    grant.add_argument("--user-id", required=True)
    grant.add_argument("--resource-id", required=True)
    grant.add_argument("--level", required=True, choices=[level.value for level in AccessLevel])
    return parser


def _admin_action(args: argparse.Namespace) -> Callable[[Session], BaseModel]:
    if args.action == "create-company":
        return lambda session: tenancy.create_company(session, args.name, args.admin_email)
    if args.action == "create-user":
        return lambda session: tenancy.create_user(session, args.company_id, args.email, is_admin=args.admin)
    if args.action == "create-resource":
        spec = ResourceSpec(type=HandlerType(args.type), name=args.name, endpoint=args.endpoint)
        return lambda session: resources.create_resource(session, args.company_id, spec)
    spec_grant = GrantSpec(user_id=args.user_id, resource_id=args.resource_id, level=AccessLevel(args.level))
    return lambda session: resources.grant(session, spec_grant)


def _fail(message: str, status: int = 1) -> int:
    print(f"svc admin: {message}", file=sys.stderr)
    return status


def run_admin(settings: Settings, args: argparse.Namespace) -> int:
    try:
        action = _admin_action(args)
    except ValidationError as exc:
        return _fail("; ".join(error["msg"].removeprefix("Value error, ") for error in exc.errors()), 2)
    upgrade(settings.resolved_database_url)
    engine = make_engine(settings.resolved_database_url)
    try:
        with make_sessions(engine).begin() as session:
            result = action(session)
    except (SinkError, ValueError) as exc:
        return _fail(str(exc))
    except IntegrityError:
        return _fail("the change conflicts with existing data")
    except SQLAlchemyError as exc:
        return _fail(f"metadata DB error: {type(exc).__name__}")
    finally:
        engine.dispose()
    print(json.dumps(result.model_dump(mode="json", by_alias=True)))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings = Settings()
    except ValidationError as exc:
        return _fail(f"invalid settings: {exc}", 2)
    if args.role == "admin":
        logs.configure("WARNING", role="admin")
        return run_admin(settings, args)
    logs.configure(settings.log_level, role=args.role)
    if args.role == "migrate":
        upgrade(settings.resolved_database_url)
        return 0
    from svc import roles, supervisor

    if args.role == "up":
        return supervisor.run_up(settings)
    if args.role == "ingress":
        roles.run_ingress(settings)
    else:
        roles.run_worker(settings)
    return 0
