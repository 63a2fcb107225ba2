"""The web plumbing every API shares: problem details and the exception handlers that render them, the strict
request DTO, the JSON media-type check, the OpenAPI hooks, and the fast routes of the hottest operations."""
