"""The Message Batches API behind Client.create: many threads' calls in one batch, each
thread its own reply, half price; an interrupted batcher's successor collects instead of
sending again; failed items go again on their own."""

from __future__ import annotations

import threading

import pytest
from fakes.anthropic_server import text

from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.kits.llm import batches as llm_batches

FAST = llm_batches.Timing(poll_s=0.02, poll_max_s=0.05, quiet_s=0.05)


def _echo(body):
    content = body["messages"][-1]["content"]
    said = content if isinstance(content, str) else content[-1]["text"]
    return text(f"re: {said}")


def _client(tmp_path, **config) -> llm.Client:
    return llm.Client(llm.Config(model="claude-sonnet-test", cache_dir=str(tmp_path / "cache"), **config),
                      sleep=lambda s: None)


def _ask_in_threads(client: llm.Client, questions: list[str]) -> dict[str, str]:
    answers: dict[str, str] = {}

    def ask(q: str) -> None:
        try:
            answers[q] = client.create(system="s", messages=[{"role": "user", "content": q}], sample=0).text
        except llm.LLMError as exc:
            answers[q] = f"error: {exc}"

    threads = [threading.Thread(target=ask, args=(q,)) for q in questions]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answers


def test_calls_of_many_threads_share_one_batch_and_cost_half(fake_anthropic, tmp_path):
    fake_anthropic.handler = _echo
    fake_anthropic.batches.delay_s = 0.1
    client = _client(tmp_path)
    with llm_batches.Batcher(client, timing=FAST) as batcher:
        answers = _ask_in_threads(client.batched(batcher), [f"q{i}" for i in range(6)])
    assert answers == {f"q{i}": f"re: q{i}" for i in range(6)}
    assert len(fake_anthropic.batches.created) == 1 and fake_anthropic.requests == []
    totals = client.ledger.totals()
    assert totals["batched_calls"] == 6
    # sonnet list price $3 / $15 per million, halved: 100 input and 20 output tokens a call
    assert totals["cost_usd"] == pytest.approx(6 * (100 * 3 + 20 * 15) / 1e6 / 2)


def test_a_thread_asking_twice_waits_one_batch_round_per_call(fake_anthropic, tmp_path):
    fake_anthropic.handler = _echo
    client = _client(tmp_path)
    with llm_batches.Batcher(client, timing=FAST) as batcher:
        batched = client.batched(batcher)
        first = batched.create(system="s", messages=[{"role": "user", "content": "one"}], sample=0)
        second = batched.create(system="s", messages=[{"role": "user", "content": first.text}], sample=0)
    assert second.text == "re: re: one"
    assert len(fake_anthropic.batches.created) == 2


def test_an_interrupted_batch_is_collected_by_the_next_batcher_not_sent_again(fake_anthropic, tmp_path):
    fake_anthropic.handler = _echo
    fake_anthropic.batches.hold = True  # the API is slow today
    journal = llm_batches.MemoryJournal()
    client = _client(tmp_path)
    impatient = llm_batches.Timing(poll_s=0.02, poll_max_s=0.05, quiet_s=0.05, wait_s=1.5)
    with llm_batches.Batcher(client, journal, impatient) as batcher:
        answers = _ask_in_threads(client.batched(batcher), ["a", "b"])
    assert all("Message Batch still processing" in a for a in answers.values())
    [kept] = journal.data.values()
    assert not kept["collected"] and len(kept["custom_ids"]) == 2

    fake_anthropic.batches.hold = False  # later: the batch has ended
    again = _client(tmp_path)
    with llm_batches.Batcher(again, journal, FAST) as batcher:
        assert batcher.resumed == list(journal.data)
        answers = _ask_in_threads(again.batched(batcher), ["a", "b"])
    assert answers == {"a": "re: a", "b": "re: b"}
    assert len(fake_anthropic.batches.created) == 1, "nothing was sent twice"
    assert all(entry["collected"] for entry in journal.data.values())
    # what came back is in the response cache: a third run asks nobody
    third = _client(tmp_path)
    reply = third.create(system="s", messages=[{"role": "user", "content": "a"}], sample=0)
    assert reply.cached and reply.text == "re: a"


def test_results_land_in_the_response_cache_even_when_nobody_asks_again(fake_anthropic, tmp_path):
    fake_anthropic.handler = _echo
    fake_anthropic.batches.hold = True
    journal = llm_batches.MemoryJournal()
    client = _client(tmp_path)
    with llm_batches.Batcher(client, journal, llm_batches.Timing(poll_s=0.02, quiet_s=0.05, wait_s=1.5)) as b:
        _ask_in_threads(client.batched(b), ["x"])
    assert len(journal.data) == 1
    fake_anthropic.batches.hold = False
    with llm_batches.Batcher(_client(tmp_path), journal, FAST) as batcher:
        _ask_in_threads(_client(tmp_path).batched(batcher), ["unrelated"])  # keeps the batcher busy a round
    reply = _client(tmp_path).create(system="s", messages=[{"role": "user", "content": "x"}], sample=0)
    assert reply.cached and reply.text == "re: x"


def test_errored_and_expired_items_go_again_on_their_own(fake_anthropic, tmp_path):
    fake_anthropic.handler = _echo
    fake_anthropic.batches.fault = lambda cid, params: {"q1": "errored", "q2": "expired"}.get(
        params["messages"][0]["content"])
    client = _client(tmp_path)
    with llm_batches.Batcher(client, timing=FAST) as batcher:
        answers = _ask_in_threads(client.batched(batcher), ["q0", "q1", "q2"])
    assert answers == {"q0": "re: q0", "q1": "re: q1", "q2": "re: q2"}
    assert sorted(r.body["messages"][0]["content"] for r in fake_anthropic.requests) == ["q1", "q2"]
    assert client.ledger.totals()["batched_calls"] == 1


def test_a_refused_item_fails_without_another_try(fake_anthropic, tmp_path):
    fake_anthropic.handler = _echo
    fake_anthropic.batches.fault = lambda cid, params: "invalid"
    client = _client(tmp_path)
    with llm_batches.Batcher(client, timing=FAST) as batcher:
        answers = _ask_in_threads(client.batched(batcher), ["q"])
    assert answers["q"].startswith("error:") and "refused" in answers["q"]
    assert fake_anthropic.requests == []


def test_a_whole_expired_batch_is_answered_item_by_item(fake_anthropic, tmp_path):
    fake_anthropic.handler = _echo
    fake_anthropic.batches.expire = True
    client = _client(tmp_path)
    with llm_batches.Batcher(client, timing=FAST) as batcher:
        answers = _ask_in_threads(client.batched(batcher), ["p", "q"])
    assert answers == {"p": "re: p", "q": "re: q"}
    assert len(fake_anthropic.requests) == 2


def test_big_request_sets_are_cut_into_batches_within_the_limits(fake_anthropic, tmp_path):
    fake_anthropic.handler = _echo
    client = _client(tmp_path)
    small = llm_batches.Timing(poll_s=0.02, quiet_s=0.1, max_requests=3)
    with llm_batches.Batcher(client, timing=small) as batcher:
        answers = _ask_in_threads(client.batched(batcher), [f"q{i}" for i in range(7)])
    assert len(answers) == 7 and all(a.startswith("re:") for a in answers.values())
    sizes = [len(b.requests) for b in fake_anthropic.batches.created]
    assert sum(sizes) == 7 and max(sizes) <= 3


def test_the_same_request_from_two_threads_is_sent_and_paid_once(fake_anthropic, tmp_path):
    fake_anthropic.handler = _echo
    client = _client(tmp_path)
    with llm_batches.Batcher(client, timing=FAST) as batcher:
        batched = client.batched(batcher)
        replies = []
        threads = [threading.Thread(target=lambda: replies.append(batched.create(
            system="s", messages=[{"role": "user", "content": "same"}], sample=0).text)) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert replies == ["re: same", "re: same"]
    assert len(fake_anthropic.batches.items) == 1
    totals = client.ledger.totals()
    assert totals["batched_calls"] == 1 and totals["cache_hits"] == 1


def test_abandoning_lets_every_waiting_caller_go_and_keeps_the_batch_for_later(fake_anthropic, tmp_path):
    fake_anthropic.handler = _echo
    fake_anthropic.batches.hold = True
    journal = llm_batches.MemoryJournal()
    client = _client(tmp_path)
    with llm_batches.Batcher(client, journal, FAST) as batcher:
        waiting = threading.Thread(target=lambda: answers.update(_ask_in_threads(client.batched(batcher), ["q"])))
        answers: dict[str, str] = {}
        waiting.start()
        while not journal.data:  # submitted, now waiting on the held batch
            threading.Event().wait(0.01)
        batcher.abandon()  # what an interrupted run does
        waiting.join(timeout=5)
    assert "still processing" in answers["q"]
    assert [entry["collected"] for entry in journal.data.values()] == [False]
