"""The one command, ``svc``: its role comes from the subcommand.

Each command imports what it needs when it runs: an admin call then starts without the web framework, the
HTTP client or Iceberg, which only the ingress, `svc load` and create-table use."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, ValidationError
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session

from schemas.admin import (
    CreatedTableId,
    Granted,
    GrantSpec,
    ResourceLimitsSpec,
    ResourceSpec,
    ResourceVersionOut,
    VersionSpec,
    VersionStateSpec,
)
from schemas.enums import AccessLevel, HandlerType
from schemas.settings import Settings
from schemas.storage import StorageReport
from schemas.tables import CreateTableRequest
from schemas.versions import VersionState
from sinks.db import resources, tenancy
from sinks.db.analytics import tables
from sinks.db.engine import make_engine, make_sessions
from sinks.db.migrate import upgrade
from sinks.db.models import ResourceVersion, User
from sinks.exceptions import SinkError
from svc import database, logs
from svc.verbs import parser as verbs

# `svc load`'s part size: each part is one signed PUT, several at once.
DEFAULT_PART_MB = 16


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="svc", description="Webhooks, scheduled events and analytics tables."
    )
    roles = parser.add_subparsers(dest="role", required=True)
    roles.add_parser(
        "up", help="run the whole stack on this machine (embedded broker unless one is configured)"
    )
    ingress = roles.add_parser("ingress", help="run the HTTP ingress (needs SVC_KAFKA_BOOTSTRAP)")
    ingress.add_argument(
        "--fd",
        type=int,
        help="serve on this inherited listening socket (svc up shares one among its ingresses)",
    )
    worker = roles.add_parser("worker", help="run one Faust worker (needs SVC_KAFKA_BOOTSTRAP)")
    for role in (ingress, worker):
        role.add_argument(
            "--name", help="this process's name in every log line (svc up names ingress-1, ...)"
        )
    roles.add_parser("migrate", help="apply the metadata DB migrations and exit")
    roles.add_parser("openapi", help="print the ingress's OpenAPI document (docs/openapi.json) and exit")
    _load_parser(roles)
    verbs.add_parsers(roles)

    admin = roles.add_parser(
        "admin", help="manage companies, users, handler resources, their versions and grants; see storage use"
    )
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
    _limit_arguments(resource)
    limits = actions.add_parser(
        "update-resource", help="change the delivery limits of an agent, tool or manager"
    )
    limits.add_argument("--resource-id", required=True)
    _limit_arguments(limits)
    limits.add_argument("--no-rate-limit", action="store_true", help="take its calls-per-second limit off")
    _version_parsers(actions)
    table = actions.add_parser(
        "create-table", help="an analytics table from a JSON spec (the create call's body)"
    )
    table.add_argument("--company-id", required=True)
    table.add_argument("--spec", required=True, type=Path, help="file holding the table's JSON definition")
    grant = actions.add_parser("grant", help="set a user's access level on a resource or an analytics table")
    grant.add_argument("--user-id", required=True)
    grant.add_argument("--resource-id", required=True)
    grant.add_argument("--level", required=True, choices=[level.value for level in AccessLevel])
    storage = actions.add_parser(
        "storage",
        help="rows and bytes per kind of record and company, the object store's bytes, the DB's size",
    )
    storage.add_argument("--company-id", help="one company's records and objects only")
    storage.add_argument("--json", action="store_true", help="the report as one JSON object")
    return parser


def _limit_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--max-concurrency", type=int, help="calls in flight at once across every worker (default 16)"
    )
    parser.add_argument("--max-per-second", type=float, help="calls started per second (default: no limit)")


def _version_parsers(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    states = [state.value for state in VersionState]
    version = actions.add_parser(
        "create-version", help="add the next numbered version of an agent, tool or manager, with its endpoint"
    )
    version.add_argument("--resource-id", required=True)
    version.add_argument("--endpoint", required=True, help="http(s)://... (JSON POST) or kafka://<topic>")
    version.add_argument("--state", choices=states, default=VersionState.DRAFT.value)
    state = actions.add_parser(
        "set-version-state", help="publish, draft or archive one version of an agent, tool or manager"
    )
    state.add_argument("--resource-id", required=True)
    state.add_argument("--version", required=True, type=int, help="the version number")
    state.add_argument("--state", required=True, choices=states)


def _load_parser(roles: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    load = roles.add_parser("load", help="upload a local CSV or Parquet file and load it into a table")
    load.add_argument("file", type=Path)
    load.add_argument("--table", required=True, help="the table id")
    load.add_argument("--url", default=os.environ.get("SVC_URL", "http://127.0.0.1:8080"))
    load.add_argument("--key", default=os.environ.get("SVC_API_KEY"), help="client API key (or SVC_API_KEY)")
    load.add_argument("--mode", choices=("APPEND", "REPLACE"), default="APPEND")
    load.add_argument("--format", choices=("CSV", "PARQUET"), default=None)
    load.add_argument("--delimiter", default=None)
    load.add_argument("--no-header", action="store_true")
    load.add_argument("--null-string", default=None)
    load.add_argument("--part-mb", type=int, default=DEFAULT_PART_MB)


def _admin_action(args: argparse.Namespace, settings: Settings) -> Callable[[Session], BaseModel]:
    if args.action == "create-company":
        return lambda session: tenancy.create_company(session, args.name, args.admin_email)
    if args.action == "create-user":
        return lambda session: tenancy.create_user(session, args.company_id, args.email, is_admin=args.admin)
    if args.action == "create-resource":
        limits = {
            name: value
            for name, value in (
                ("max_concurrency", args.max_concurrency),
                ("max_per_second", args.max_per_second),
            )
            if value is not None
        }
        spec = ResourceSpec(type=HandlerType(args.type), name=args.name, endpoint=args.endpoint, **limits)
        return lambda session: resources.create_resource(session, args.company_id, spec)
    if args.action == "update-resource":
        new_limits = ResourceLimitsSpec(
            resource_id=args.resource_id,
            max_concurrency=args.max_concurrency,
            max_per_second=args.max_per_second,
            no_rate_limit=args.no_rate_limit,
        )
        return lambda session: resources.update_limits(session, new_limits)
    if args.action == "create-version":
        version = VersionSpec(
            resource_id=args.resource_id, endpoint=args.endpoint, state=VersionState(args.state)
        )
        return lambda session: _version_out(resources.create_version(session, version))
    if args.action == "set-version-state":
        change = VersionStateSpec(
            resource_id=args.resource_id, version_number=args.version, state=VersionState(args.state)
        )
        return lambda session: _version_out(resources.set_version_state(session, change))
    if args.action == "create-table":
        try:
            body = CreateTableRequest.model_validate_json(args.spec.read_text())
        except OSError as exc:
            raise ValueError(f"cannot read {args.spec}: {exc.strerror}") from exc
        return lambda session: _create_table(session, settings, args.company_id, body)
    if args.action == "storage":
        from svc import storage_report

        return lambda session: storage_report.gather(session, settings, args.company_id)
    spec_grant = GrantSpec(user_id=args.user_id, resource_id=args.resource_id, level=AccessLevel(args.level))
    return lambda session: _grant(session, spec_grant)


def _version_out(version: ResourceVersion) -> BaseModel:
    return ResourceVersionOut(
        resource_id=version.resource_id,
        version_number=version.version_number,
        state=VersionState(version.state),
    )


def _create_table(
    session: Session, settings: Settings, company_id: str, body: CreateTableRequest
) -> BaseModel:
    from ingress.analytics.table_specs import register_table
    from ingress.errors import ApiError
    from sinks.iceberg.catalog import catalog_for

    admin = tenancy.primary_admin(session, company_id)
    catalog = catalog_for(settings)
    try:
        return CreatedTableId(table_id=register_table(session, catalog, company_id, admin.id, body).id)
    except ApiError as exc:  # the spec's refusal, as the create call would answer it
        raise ValueError("; ".join(exc.errors)) from None


def _grant(session: Session, spec: GrantSpec) -> BaseModel:
    """A table id gets a table grant (READ or WRITE); any other id a handler-resource grant."""
    user = session.get(User, spec.user_id)
    table = tables.get(session, user.company_id, spec.resource_id) if user is not None else None
    if table is None or user is None:
        return resources.grant(session, spec)
    if spec.level not in (AccessLevel.READ, AccessLevel.WRITE):
        raise ValueError("tables take READ or WRITE")
    tables.set_grant(session, table, user.id, spec.level.value, None, [], False)
    return Granted(granted=True)


def _fail(message: str, status: int = 1) -> int:
    print(f"svc admin: {message}", file=sys.stderr)
    return status


def run_admin(settings: Settings, args: argparse.Namespace) -> int:
    try:
        action = _admin_action(args, settings)
    except ValidationError as exc:
        return _fail("; ".join(error["msg"].removeprefix("Value error, ") for error in exc.errors()), 2)
    except ValueError as exc:
        return _fail(str(exc), 2)
    problem = database.unreachable(settings.resolved_database_url)
    if problem is not None:
        return _fail(problem)
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
    if args.action == "storage" and not args.json:
        from svc import storage_report

        print(storage_report.render(StorageReport.model_validate(result)), end="")
        return 0
    print(json.dumps(result.model_dump(mode="json", by_alias=True)))
    return 0


def openapi_document() -> str:
    """The ingress's OpenAPI document as committed in docs/openapi.json: the default settings' app (the
    document depends on no setting), indented, one trailing newline."""
    from ingress.app import create_app

    return json.dumps(create_app(Settings.model_construct()).openapi(), indent=2, ensure_ascii=False) + "\n"


def _name_every_record(name: str) -> None:
    """Each log line carries ``svc_process``: svc up's children share its stderr, several of one role."""
    make_record = logging.getLogRecordFactory()

    def named(*args: object, **kwargs: object) -> logging.LogRecord:
        record = make_record(*args, **kwargs)
        record.svc_process = name
        return record

    logging.setLogRecordFactory(named)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.role == "load":
        from svc import load_file

        return load_file.run(args)
    if args.role in verbs.VERBS:
        return verbs.run(args)
    if args.role == "openapi":
        sys.stdout.write(openapi_document())
        return 0
    try:
        settings = Settings()
    except ValidationError as exc:
        # One line, and never the rejected value itself (it may be a key or a URL with a password).
        problems = "; ".join(
            f"SVC_{'_'.join(map(str, error['loc'])).upper()}: {error['msg']}"
            if error["loc"]
            else error["msg"]
            for error in exc.errors()
        )
        print(f"svc {args.role}: invalid settings: {problems.replace('Value error, ', '')}", file=sys.stderr)
        return 2
    if args.role == "admin":
        logs.configure("WARNING", role="admin")
        return run_admin(settings, args)
    if getattr(args, "name", None):
        _name_every_record(args.name)
    logs.configure(settings.log_level, role=args.role)
    if args.role == "migrate":
        problem = database.prepare(settings)
        if problem is not None:
            print(f"svc migrate: {problem}", file=sys.stderr)
            return 1
        return 0
    from svc import roles, supervisor

    if args.role == "up":
        return supervisor.run_up(settings)
    if args.role == "ingress":
        roles.run_ingress(settings, listen_fd=args.fd)
    else:
        roles.run_worker(settings)
    return 0
