import pytest
from sqlalchemy import inspect, select, text

from schemas.admin import GrantSpec, ResourceSpec
from schemas.enums import AccessLevel
from schemas.settings import Settings
from sinks.db import resources, tenancy
from sinks.db.migrate import upgrade
from sinks.db.models import ApiKey
from sinks.exceptions import Conflict, NotFound
from tests.fixtures.stack import Db

pytestmark = pytest.mark.integration


def test_migrations_are_idempotent_and_sqlite_runs_in_wal(db: Db, settings: Settings) -> None:
    upgrade(settings.resolved_database_url)
    tables = set(inspect(db.engine).get_table_names())
    assert {
        "companies",
        "users",
        "api_keys",
        "handler_resources",
        "resource_grants",
        "alembic_version",
    } <= tables
    if db.engine.dialect.name == "sqlite":  # readers never wait for the writer
        with db.engine.connect() as connection:
            assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"


def test_keys_are_stored_only_as_digests(db: Db, settings: Settings) -> None:
    created = db.create_company()
    with db.sessions() as session:
        digests = list(session.scalars(select(ApiKey.secret_digest)))
    assert len(digests) == 2
    if db.engine.dialect.name == "sqlite":
        raw = (settings.data_dir / "svc.db").read_bytes()
        wal = settings.data_dir / "svc.db-wal"
        raw += wal.read_bytes() if wal.exists() else b""
    else:  # every row of every table, as text
        with db.engine.connect() as connection:
            names = inspect(db.engine).get_table_names()
            rows = [
                connection.execute(text(f'SELECT t::text FROM "{name}" t')).scalars().all()  # noqa: S608
                for name in names
            ]
        raw = "\n".join(str(row) for table in rows for row in table).encode()
        assert b"CLIENT" in raw  # the scan reads the rows
    secret = created.poweruser_key.rsplit(":", 1)[1]
    assert created.client_api_key.encode() not in raw
    assert secret.encode() not in raw


def test_both_keys_authenticate_as_the_primary_admin(db: Db) -> None:
    created = db.create_company()
    with db.sessions() as session:
        client = tenancy.authenticate_client_key(session, created.client_api_key)
        poweruser = tenancy.authenticate_poweruser_key(session, created.poweruser_key)
        assert client is not None and poweruser is not None
        assert client.user_id == poweruser.user_id == created.user_id
        assert client.is_admin and client.key_kind == "CLIENT" and poweruser.key_kind == "POWERUSER"
        # Each key works only where its kind belongs.
        assert tenancy.authenticate_client_key(session, created.poweruser_key) is None
        assert tenancy.authenticate_poweruser_key(session, created.client_api_key) is None
        key_id = created.poweruser_key.split(":")[1]
        forged = f"pwrusr:{key_id}:{'A' * 43}"
        assert tenancy.authenticate_poweruser_key(session, forged) is None
        assert tenancy.primary_admin(session, created.company_id).id == created.user_id


def test_disabled_key_is_refused(db: Db) -> None:
    created = db.create_company()
    with db.sessions.begin() as session:
        for key in session.scalars(select(ApiKey)):
            key.enabled = False
    with db.sessions() as session:
        assert tenancy.authenticate_client_key(session, created.client_api_key) is None
        assert tenancy.authenticate_poweruser_key(session, created.poweruser_key) is None


def test_users_resources_and_grants_are_company_scoped(db: Db) -> None:
    acme = db.create_company("Acme", "admin@acme.test")
    other = db.create_company("Other", "admin@other.test")
    with db.sessions.begin() as session:
        member = tenancy.create_user(session, acme.company_id, "Member@Acme.test")
        tool = resources.create_resource(
            session, acme.company_id, ResourceSpec(type="TOOL", name="t", endpoint="http://127.0.0.1:1/t")
        )
        foreign = resources.create_resource(
            session, other.company_id, ResourceSpec(type="AGENT", name="a", endpoint="kafka://agents")
        )
    with db.sessions.begin() as session:
        assert resources.access_level(session, acme.company_id, member.user_id, tool.resource_id) is None
        resources.grant(
            session, GrantSpec(user_id=member.user_id, resource_id=tool.resource_id, level=AccessLevel.READ)
        )
        resources.grant(
            session, GrantSpec(user_id=member.user_id, resource_id=tool.resource_id, level=AccessLevel.WRITE)
        )
        with pytest.raises(NotFound):
            resources.grant(
                session,
                GrantSpec(user_id=member.user_id, resource_id=foreign.resource_id, level=AccessLevel.ADMIN),
            )
    with db.sessions() as session:
        assert (
            resources.access_level(session, acme.company_id, member.user_id, tool.resource_id)
            is AccessLevel.WRITE
        )
        assert (
            resources.access_level(session, acme.company_id, acme.user_id, tool.resource_id)
            is AccessLevel.ADMIN
        )
        # Another company's admin holds nothing here, and cannot even see the resource.
        assert resources.access_level(session, acme.company_id, other.user_id, tool.resource_id) is None
        assert resources.get_handler(session, other.company_id, tool.resource_id) is None
        assert [r.id for r in resources.list_handlers(session, acme.company_id)] == [tool.resource_id]
        user = tenancy.find_user_by_email(session, acme.company_id, "member@acme.test")
        assert user is not None and user.id == member.user_id


def test_duplicate_email_and_unknown_company(db: Db) -> None:
    acme = db.create_company()
    with db.sessions.begin() as session, pytest.raises(Conflict):
        tenancy.create_user(session, acme.company_id, "admin@acme.test")
    with db.sessions.begin() as session, pytest.raises(NotFound):
        tenancy.create_user(session, "0" * 32, "x@y.test")
    with db.sessions.begin() as session, pytest.raises(ValueError, match="invalid email"):
        tenancy.create_user(session, acme.company_id, "not-an-email")
