"""The metadata DB's side of analytics: tables and grants, jobs and their listing, appends, uploads, the
result cache."""
