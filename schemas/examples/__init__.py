"""Request examples for the OpenAPI document (issue 22): one realistic body, or a few, per operation.

The request models in ``schemas/`` name them in ``model_config`` (``json_schema_extra``), so FastAPI renders
them into each model's schema in /openapi.json and docs/openapi.json. They tell one story: a web shop's
company, its ``orders`` and ``customers`` tables, a webhook from the shop, a few scheduled events. Every id is
one the service could have issued (``schemas.ids.new_id``: 32 lower-case hex digits), and
tests/unit/test_openapi_examples.py validates every example against its model, so none can drift from it.
"""
