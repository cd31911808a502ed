"""Analytics tables on the ingress: client calls, query jobs and their results, loads, uploads, table
administration."""
