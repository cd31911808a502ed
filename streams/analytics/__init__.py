"""The worker's analytics areas: query and load jobs, the table writers, uploads and automatic maintenance."""
