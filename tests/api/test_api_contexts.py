"""Contexts, groups and health over HTTP, on the real store."""

from __future__ import annotations

import pytest

from tabane.storage import migrate

CONTEXT_KEYS = {
    "name",
    "description",
    "dice_floor",
    "semantic_floor",
    "scopes",
    "created_at",
    "stats",
    "usage",
}


def error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "issues", "written"}
    assert body["error"]["code"] == code
    assert body["error"]["written"] == "nothing"
    return body["error"]


def paths(err: dict) -> list[str]:
    return [i["path"] for i in err["issues"]]


def test_health(client) -> None:
    body = client.get("/health").json()
    assert body == {
        "status": "ok",
        "version": "0.1.0",
        "database": "embedded",
        "revision": migrate.head(),
    }


def test_context_lifecycle(client, user, new_name) -> None:
    name = new_name("ctx")
    created = client.post("/contexts", json={"name": name, "description": "first"})
    assert created.status_code == 201
    info = created.json()
    assert set(info) == CONTEXT_KEYS
    assert (info["name"], info["description"], info["dice_floor"]) == (name, "first", 0.3)
    assert info["scopes"] == [f"user:{user.name}"]
    assert info["stats"] == {
        "sources": 0,
        "paragraphs": 0,
        "sections": 0,
        "concepts": 0,
        "labels": 0,
        "associations": 0,
        "top_concepts": [],
        "label_samples": [],
    }
    assert set(info["usage"]) == {"reads", "misses", "writes", "last_access"}

    listed = client.get("/contexts").json()
    assert set(listed) == {"contexts"}
    assert name in [c["name"] for c in listed["contexts"]]
    assert client.get(f"/contexts/{name}").json()["description"] == "first"

    patched = client.patch(
        f"/contexts/{name}", json={"description": "d", "dice_floor": 0.4, "semantic_floor": 0.25}
    ).json()
    assert (patched["description"], patched["dice_floor"], patched["semantic_floor"]) == (
        "d",
        0.4,
        0.25,
    )
    # only the fields sent change; null clears the semantic floor
    patched = client.patch(f"/contexts/{name}", json={"semantic_floor": None}).json()
    assert (patched["description"], patched["semantic_floor"]) == ("d", None)

    renamed = client.post(f"/contexts/{name}/rename", json={"new_name": name + "b"})
    assert renamed.status_code == 200 and renamed.json()["name"] == name + "b"
    error(client.get(f"/contexts/{name}"), 404, "no_context")

    client.post(f"/contexts/{name}b/sources", json={"source_id": "a.md", "text": "# A\n\nx\n\ny"})
    deleted = client.delete(f"/contexts/{name}b")
    assert deleted.json() == {
        "name": name + "b",
        "removed": {
            "sources": 1,
            "paragraphs": 2,
            "sections": 1,
            "concepts": 0,
            "labels": 0,
            "associations": 0,
            "top_concepts": [],
            "label_samples": [],
        },
    }
    error(client.get(f"/contexts/{name}b"), 404, "no_context")


def test_unknown_context(client) -> None:
    err = error(client.get("/contexts/nowhere-at-all"), 404, "no_context")
    assert paths(err) == ["path.context"]
    error(client.patch("/contexts/nowhere-at-all", json={"description": "x"}), 404, "no_context")
    error(client.delete("/contexts/nowhere-at-all"), 404, "no_context")


@pytest.mark.parametrize("bad", ["", "has space", ".dot", "a" * 65])
def test_invalid_name(client, bad) -> None:
    err = error(client.post("/contexts", json={"name": bad}), 422, "invalid_name")
    assert paths(err) == ["body.name"]


def test_invalid_new_name(client, context) -> None:
    response = client.post(f"/contexts/{context}/rename", json={"new_name": ""})
    err = error(response, 422, "invalid_name")
    assert paths(err) == ["body.new_name"]
    assert client.get(f"/contexts/{context}").status_code == 200


def test_name_taken(client, context) -> None:
    error(client.post("/contexts", json={"name": context}), 409, "name_taken")


def test_patch_refuses_unknown_fields_and_changes_nothing(client, context) -> None:
    err = error(
        client.patch(f"/contexts/{context}", json={"description": "x", "colour": "red"}),
        422,
        "invalid_input",
    )
    assert paths(err) == ["body.colour"]
    assert client.get(f"/contexts/{context}").json()["description"] == ""


@pytest.mark.parametrize(
    ("field", "value", "path"),
    [
        ("dice_floor", 1.5, "body.dice_floor"),  # the service's check names it the same way
        ("semantic_floor", -1.01, "body.semantic_floor"),
        ("dice_floor", "0.5", "body.dice_floor"),
        ("dice_floor", True, "body.dice_floor"),
        ("description", 5, "body.description"),
    ],
)
def test_patch_refuses_bad_values(client, context, field, value, path) -> None:
    err = error(client.patch(f"/contexts/{context}", json={field: value}), 422, "invalid_input")
    assert paths(err) == [path]
    assert client.get(f"/contexts/{context}").json()["dice_floor"] == 0.3


@pytest.mark.parametrize("raw", [b'{"dice_floor": NaN}', b'{"semantic_floor": -Infinity}'])
def test_nan_and_infinity_are_refused(client, context, raw) -> None:
    response = client.patch(
        f"/contexts/{context}", content=raw, headers={"content-type": "application/json"}
    )
    err = error(response, 422, "invalid_input")
    assert paths(err)[0].startswith("body.")
    info = client.get(f"/contexts/{context}").json()
    assert (info["dice_floor"], info["semantic_floor"]) == (0.3, None)


def test_no_user_or_scope_authority_from_the_body(client, new_name) -> None:
    err = error(
        client.post("/contexts", json={"name": new_name("ctx"), "user": "root"}),
        422,
        "invalid_input",
    )
    assert paths(err) == ["body.user"]


def test_reader_cannot_change_a_context(svc, make_user, client_for, new_name) -> None:
    owner = make_user(extra_write=("team:z",))
    reader = make_user(extra_read=("team:z",))
    name = new_name("ctx")
    client_for(owner).post("/contexts", json={"name": name, "scopes": ["team:z"]})
    as_reader = client_for(reader)
    assert as_reader.get(f"/contexts/{name}").json()["scopes"] == ["team:z"]
    error(as_reader.patch(f"/contexts/{name}", json={"description": "mine"}), 403, "forbidden")
    renamed = as_reader.post(f"/contexts/{name}/rename", json={"new_name": "x" + name})
    error(renamed, 403, "forbidden")
    error(as_reader.delete(f"/contexts/{name}"), 403, "forbidden")
    assert svc.get_context(owner, name).description == ""


def test_create_context_with_scopes_the_caller_cannot_write(client, new_name) -> None:
    name = new_name("ctx")
    response = client.post("/contexts", json={"name": name, "scopes": ["org:else"]})
    err = error(response, 403, "forbidden")
    assert paths(err) == ["body.scopes"]
    error(client.get(f"/contexts/{name}"), 404, "no_context")


# -- groups ---------------------------------------------------------------------------------------


def test_group_lifecycle(client, make_context, new_name) -> None:
    a, b = make_context(), make_context()
    g, child = new_name("grp"), new_name("grp")
    assert client.post("/groups", json={"name": child}).status_code == 201
    created = client.post("/groups", json={"name": g, "description": "d", "contexts": [a]})
    assert created.status_code == 201
    body = created.json()
    assert set(body) == {"name", "description", "scopes", "contexts", "groups"}
    assert (body["name"], body["description"]) == (g, "d")
    assert (body["contexts"], body["groups"]) == ([a], [])

    assert g in [x["name"] for x in client.get("/groups").json()["groups"]]
    assert client.get(f"/groups/{g}").json()["contexts"] == [a]

    changed = client.patch(
        f"/groups/{g}",
        json={
            "add_contexts": [b],
            "remove_contexts": [a],
            "add_groups": [child],
            "description": "e",
        },
    ).json()
    assert (changed["contexts"], changed["groups"], changed["description"]) == ([b], [child], "e")
    changed = client.patch(f"/groups/{g}", json={"remove_groups": [child]}).json()
    assert (changed["groups"], changed["description"]) == ([], "e")

    renamed = client.post(f"/groups/{g}/rename", json={"new_name": g + "r"})
    assert renamed.status_code == 200 and renamed.json()["name"] == g + "r"
    error(client.get(f"/groups/{g}"), 404, "no_group")
    taken = error(client.post(f"/groups/{g}r/rename", json={"new_name": child}), 409, "name_taken")
    assert paths(taken) == ["body.new_name"]
    g += "r"
    assert client.delete(f"/groups/{g}").json() == {"name": g, "deleted": True}
    error(client.get(f"/groups/{g}"), 404, "no_group")
    assert client.get(f"/contexts/{b}").status_code == 200  # members stay


def test_unknown_group_and_member(client, new_name) -> None:
    err = error(client.get("/groups/no-such-group"), 404, "no_group")
    assert paths(err) == ["path.group"]
    error(client.patch("/groups/no-such-group", json={}), 404, "no_group")
    error(client.delete("/groups/no-such-group"), 404, "no_group")
    g = new_name("grp")
    client.post("/groups", json={"name": g})
    err = error(client.patch(f"/groups/{g}", json={"add_contexts": ["nope-x"]}), 404, "no_context")
    assert paths(err) == ["body.add_contexts[0]"]
    err = error(client.patch(f"/groups/{g}", json={"add_groups": ["nope-x"]}), 404, "no_group")
    assert paths(err) == ["body.add_groups[0]"]


def test_group_cycle_and_depth(client, new_name) -> None:
    g1, g2, g3, g4 = (new_name("grp") for _ in range(4))
    for g in (g1, g2, g3, g4):
        client.post("/groups", json={"name": g})
    client.patch(f"/groups/{g1}", json={"add_groups": [g2]})
    client.patch(f"/groups/{g2}", json={"add_groups": [g3]})
    err = error(client.patch(f"/groups/{g3}", json={"add_groups": [g1]}), 409, "group_cycle")
    assert paths(err) == ["body.add_groups[0]"]
    error(client.patch(f"/groups/{g3}", json={"add_groups": [g4]}), 409, "group_too_deep")
    assert client.get(f"/groups/{g3}").json()["groups"] == []


def test_invalid_group_name(client) -> None:
    err = error(client.post("/groups", json={"name": ""}), 422, "invalid_name")
    assert paths(err) == ["body.name"]
