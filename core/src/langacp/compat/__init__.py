"""Every private name of a dependency langacp relies on, in one place: a module per dependency.

The SDK (``agent-client-protocol``, :mod:`langacp.compat.sdk`), LangChain
(:mod:`langacp.compat.langchain`), LangGraph (:mod:`langacp.compat.langgraph`), pydantic
(:mod:`langacp.compat.pydantic`) and the standard library's ``argparse``
(:mod:`langacp.compat.stdlib`) have no public API for these. Each name has
a pinning test in ``core/tests/test_compat.py``, so an upgrade that moves one fails there; and
``core/tests/test_no_private_names.py`` fails when a private name of a dependency is read
anywhere else. When a dependency publishes what is needed, the entry here goes.

The modules are imported on their own (``from langacp.compat import sdk``): each imports only
its dependency, and only what it needs.
"""
