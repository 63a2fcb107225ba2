"""The stateless API: ``/v1/games`` (create, view, legal moves, validate, apply; :mod:`.api`), its suggestions
(:mod:`.suggest`), ``/v1/rules`` (:mod:`.catalogue`) and ``/v1/records/verify`` (:mod:`.records`), each handler
answering with an operation of :mod:`service.referee.operations`."""
