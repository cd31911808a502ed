"""The browser console at ``/console`` (docs/console.md): server-rendered pages over the API's own routes."""
