"""``langacp.api.model_call_messages``: what an ``awrap_model_call`` middleware's handler answered, in any form."""

from __future__ import annotations

from langchain.agents.middleware.types import ExtendedModelResponse, ModelResponse
from langchain_core.messages import AIMessage, AIMessageChunk

from langacp.api import model_call_messages


def test_every_form_of_a_model_response_gives_its_messages() -> None:
    message = AIMessage("hi", tool_calls=[{"id": "c1", "name": "add", "args": {}}])
    assert model_call_messages(message) == [message]
    assert model_call_messages(AIMessageChunk("hi")) == [AIMessageChunk("hi")]
    assert model_call_messages(ModelResponse(result=[message])) == [message]
    assert model_call_messages(ExtendedModelResponse(model_response=ModelResponse(result=[message]))) == [message]
    assert model_call_messages(None) == []
