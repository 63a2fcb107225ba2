"""The referee: what both APIs (the stateless ``/v1/games`` and the hosted ``/v1/sessions``) do alike. One
function per operation (:mod:`.operations`), the engine's errors as problems (:mod:`.errors`), the syntax of a
move (:mod:`.moves`), sealed snapshots (:mod:`.snapshots`), the problem codes (:mod:`.codes`) and the wire
vocabulary they share (:mod:`.schemas`)."""
