"""rrswin.diff_network (issue 36): two runs of the network compared layer by layer, the numbers of
`rrswin diff --network` (its --json and its text), for folders of `rrswin run --network` and for
run_network results alike."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import rrswin

RENDER = (64, 64)


@pytest.fixture(scope="module")
def runs():
    """run_network at 64 x 64 under ada (twice) and zluda: the profiles part from enc0 on."""
    return {
        "ada": rrswin.run_network(RENDER, threads=2),
        "ada2": rrswin.run_network(RENDER, threads=2),
        "zluda": rrswin.run_network(RENDER, threads=2, profile="zluda"),
    }


@pytest.fixture(scope="module")
def folders(cli, tmp_path_factory):
    """The same runs by the CLI: `rrswin run --network -o DIR --render 64,64 [--profile zluda]`."""
    root = tmp_path_factory.mktemp("network_diff")
    for name, profile in (("ada", "ada"), ("zluda", "zluda")):
        cli("run", "--network", "--render", "64,64", "--profile", profile, "--threads", "2", "-o", str(root / name))
    return root


def _cli_diff(cli, a, b):
    """`rrswin diff --network A B`: the --json object, and per layer the text line's raw outputs'
    first differing blocks ({file: (bx, by) or None}), which the JSON does not carry."""
    js = json.loads(cli("diff", str(a), str(b), "--network", "--json", check=False).stdout)
    text = cli("diff", str(a), str(b), "--network", check=False).stdout
    blocks = {}
    for line in text.splitlines()[1:-1]:
        layer = line.split()[0]
        blocks[layer] = {f: (int(x), int(y)) if x else None
                         for f, x, y in re.findall(r"(\w+\.bin): \d+ of \d+ bytes differ(?: \(first at block \((\d+), (\d+)\)\))?", line)}
    return js, blocks


def _assert_equals_cli(r, js, blocks):
    assert r["first_differing"] == js["first_differing_layer"]
    assert r["identical"] == (js["first_differing_layer"] is None)
    assert [l["layer"] for l in r["layers"]] == [l["layer"] for l in js["layers"]]
    for l, jl in zip(r["layers"], js["layers"]):
        assert l["identical"] == jl["identical"], l["layer"]
        assert l["in_a"] and l["in_b"]
        files = {f["key"].split("/", 1)[1]: f for f in jl["files"]}
        assert sorted(l["outputs"]) == sorted(f.split(".")[0] for f in files), l["layer"]
        for f, jf in files.items():
            o = l["outputs"][f.split(".")[0]]
            where = f"{l['layer']}/{f}"
            for k in ("bytes_compared", "bytes_differing", "size_a", "size_b"):
                assert o[k] == jf[k], (where, k)
            if jf["kind"] == "surface":
                assert o["values_differing"] == sum(jf["per_channel"].values()), where
                assert o["max_ulp"] == jf["max_distance"], where
            else:
                # The text names the block of every raw output that differs.
                if jf["identical"]:
                    assert o["first_block"] is None, where
                else:
                    assert o["first_block"] == blocks[l["layer"]][f], where


def test_diff_network_equals_the_cli(cli, runs, folders, tmp_path):
    # ada against zluda (their sums differ from enc0's first GEMM on: docs/network.md): the same
    # numbers as `rrswin diff --network --json` (and the text's blocks) on the CLI's folders of the
    # same runs, whether the sides are run_network results, the folders, or one of each.
    js, blocks = _cli_diff(cli, folders / "ada", folders / "zluda")
    assert js["first_differing_layer"] == "enc0"
    r = rrswin.diff_network(runs["ada"], runs["zluda"])
    assert r["first_differing"] == "enc0" and not r["identical"] and r["differing_layers"] == len(r["layers"])
    _assert_equals_cli(r, js, blocks)
    assert rrswin.diff_network(folders / "ada", str(folders / "zluda")) == r
    assert rrswin.diff_network(folders / "ada", runs["zluda"]) == r
    # One byte of dec2's arena (16 x 16 tokens, 3 planes) at token (9, 3) of plane 1: block (1, 0),
    # in the folder and in the result alike.
    import shutil
    shutil.copytree(folders / "ada", tmp_path / "one")
    f = tmp_path / "one" / "dec2" / "arena.bin"
    b = bytearray(f.read_bytes())
    offset = 16 * 16 * 32 + 32 * (3 * 16 + 9) + 5
    b[offset] ^= 1
    f.write_bytes(bytes(b))
    one = {name: dict(out) for name, out in runs["ada"].items()}
    one["dec2"]["arena"] = np.frombuffer(bytes(b), np.uint8)
    js, blocks = _cli_diff(cli, folders / "ada", tmp_path / "one")
    r = rrswin.diff_network(runs["ada"], one)
    _assert_equals_cli(r, js, blocks)
    assert r["first_differing"] == "dec2" and r["differing_layers"] == 1
    arena = r["layers"][8]["outputs"]["arena"]
    assert arena["bytes_differing"] == 1 and arena["first_block"] == (1, 0)
    assert rrswin.diff_network(folders / "ada", tmp_path / "one") == r


def test_identical_runs_and_a_folder_against_its_result(runs, folders):
    r = rrswin.diff_network(runs["ada"], runs["ada2"])
    assert r["identical"] and r["first_differing"] is None and r["differing_layers"] == 0
    assert [l["layer"] for l in r["layers"]] == list(runs["ada"])
    assert all(l["identical"] and l["in_a"] and l["in_b"] for l in r["layers"])
    s = r["layers"][0]["outputs"]["surface112"]
    assert s["values_differing"] == 0 and s["max_ulp"] == 0 and s["bytes_compared"] == 64 * 64 * 8
    # The CLI's folder holds the bytes run_network returns (dec0's surface144 included).
    for a, b in ((folders / "ada", runs["ada"]), (runs["zluda"], folders / "zluda")):
        r = rrswin.diff_network(a, b)
        assert r["identical"] and r["first_differing"] is None, r
        assert "surface144" in r["layers"][-1]["outputs"]
    # Surfaces as float16 values compare as their bits.
    f16 = {n: {k: (v.view(np.float16) if k.startswith("surface") and v.dtype == np.uint16 else v) for k, v in o.items()}
           for n, o in runs["ada"].items()}
    assert rrswin.diff_network(f16, folders / "ada")["identical"]


def test_one_sided_layers_and_errors(runs, folders, tmp_path):
    ada = runs["ada"]
    no_dec0 = {n: o for n, o in ada.items() if n != "dec0"}
    r = rrswin.diff_network(ada, no_dec0)
    assert r["identical"] and r["layers"][-1] == {"layer": "dec0", "in_a": True, "in_b": False, "identical": True, "outputs": {}}
    r = rrswin.diff_network(ada, no_dec0, strict=True)
    assert not r["identical"] and r["first_differing"] == "dec0"
    with pytest.raises(TypeError, match="^a: expected a folder path"):
        rrswin.diff_network(5, ada)
    with pytest.raises(TypeError, match="^strict"):
        rrswin.diff_network(ada, ada, strict=1)
    with pytest.raises(TypeError, match=r"^b\['enc0'\]: expected a dict"):
        rrswin.diff_network(ada, {"enc0": 5})
    with pytest.raises(TypeError, match=r"^b\['enc0'\]\['arena'\]: expected dtype uint8"):
        rrswin.diff_network(ada, {"enc0": {"arena": ada["enc0"]["arena"].astype(np.int16)}})
    with pytest.raises(TypeError, match=r"^b\['enc0'\]\['surface112'\]: expected dtype uint16"):
        rrswin.diff_network(ada, {"enc0": {"surface112": ada["enc0"]["surface112"].astype(np.float32)}})
    with pytest.raises(ValueError, match="^b: expected layer names"):
        rrswin.diff_network(ada, {"enc9": ada["enc0"]})
    with pytest.raises(ValueError, match=r"^b\['enc0'\]: expected outputs named"):
        rrswin.diff_network(ada, {"enc0": {"surface999": ada["enc0"]["surface112"]}})
    with pytest.raises(ValueError, match="^b: expected a run_network result"):
        rrswin.diff_network(ada, {})
    with pytest.raises(ValueError, match=r"\(h, w, 4\)"):
        rrswin.diff_network(ada, {"enc0": {"surface112": ada["enc0"]["surface112"].reshape(-1)}})
    # An output on one side only, and surfaces of two shapes: the output named.
    with pytest.raises(ValueError, match=r"b\['enc1'\]\['merged'\]: at byte offset 0: expected the file, as on the other side"):
        rrswin.diff_network(ada, {**ada, "enc1": {k: v for k, v in ada["enc1"].items() if k != "merged"}})
    with pytest.raises(ValueError, match=r"b\['enc0'\]\['surface112'\]: at byte offset 0: expected an image of 64×64 \(as A\), found 32×32"):
        rrswin.diff_network(ada, {**ada, "enc0": {**ada["enc0"], "surface112": ada["enc1"]["surface112"]}})
    # Folders: none there, none of a run (no layer folder).
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="empty: at byte offset 0: expected an `rrswin run --network` folder .*found no layer folder"):
        rrswin.diff_network(folders / "ada", tmp_path / "empty")
    with pytest.raises(ValueError, match="nowhere: at byte offset 0: expected an `rrswin run --network` folder, found no such folder"):
        rrswin.diff_network(tmp_path / "nowhere", folders / "ada")
