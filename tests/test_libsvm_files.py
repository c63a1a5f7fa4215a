"""LIBSVM model files (``kernelkit.io``, issue 44).

Oracles: LIBSVM itself (the ``libsvm-official`` package), which must read kernelkit's files and
predict the same labels and decision values, and whose own models kernelkit must read and
predict as LIBSVM does; the round trip kernelkit → file → kernelkit must give the same model
bit for bit. The reader must reject malformed files with a ``LibsvmModelError`` naming the line,
and nothing else may escape it on arbitrary input (hypothesis).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kk_libsvm import libsvm_rows, libsvm_values
from libsvm.svmutil import svm_save_model, svm_train
from numpy.typing import NDArray
from sklearn.base import clone
from sklearn.datasets import make_classification, make_regression
from sklearn.metrics.pairwise import rbf_kernel

import kernelkit
from kernelkit._class_order import reorder_classes
from kernelkit.io import LibsvmModelError, load_libsvm_model, save_libsvm_model

pytestmark = pytest.mark.filterwarnings("ignore:.*probability.*:FutureWarning")

KERNELS: dict[str, dict[str, Any]] = {
    "linear": {"kernel": "linear"},
    "poly": {"kernel": "poly", "gamma": 0.1, "coef0": 1.0, "degree": 2},
    "rbf": {"kernel": "rbf", "gamma": 0.2},
    "sigmoid": {"kernel": "sigmoid", "gamma": 0.01, "coef0": -0.5},
}


def _classes(n_classes: int, seed: int = 0) -> tuple[NDArray[Any], NDArray[Any]]:
    X, y = make_classification(
        240, 6, n_informative=4, n_classes=n_classes, flip_y=0.05, random_state=seed
    )
    return X, np.asarray([7, -2, 40, 3][:n_classes])[y]


def _regression() -> tuple[NDArray[Any], NDArray[Any]]:
    X, y = make_regression(200, 5, noise=1.0, random_state=0)
    return X / X.std(axis=0), y / y.std()


def _fitted(name: str, kernel: str, n_classes: int = 2, sparse: bool = False, **extra: Any) -> Any:
    params = {**KERNELS[kernel], **extra}
    if name in ("SVC", "NuSVC"):
        X, y = _classes(n_classes)
    else:
        X, y = _regression()
    if name == "NuSVC" and kernel == "sigmoid":
        params["kernel"], params["gamma"] = "rbf", 0.2  # sigmoid + ν: no valid scale
    rows: Any = sp.csr_matrix(X) if sparse else X
    model = getattr(kernelkit, name)(**params)
    model.fit(rows) if name == "OneClassSVM" else model.fit(rows, y)
    return model, X, y


def _same_predictions(a: Any, b: Any, X: Any) -> None:
    for method in ("predict", "decision_function", "predict_proba"):
        if hasattr(a, method):
            np.testing.assert_array_equal(getattr(a, method)(X), getattr(b, method)(X))


NAMES = ["SVC", "NuSVC", "SVR", "NuSVR", "OneClassSVM"]


@pytest.mark.parametrize("kernel", sorted(KERNELS))
@pytest.mark.parametrize("name", NAMES)
def test_round_trip_is_exact(name: str, kernel: str, tmp_path: Path) -> None:
    model, X, _ = _fitted(name, kernel, n_classes=3)
    save_libsvm_model(model, tmp_path / "model")
    loaded = load_libsvm_model(tmp_path / "model")
    assert type(loaded) is type(model)
    assert loaded.kernel == model.kernel
    _same_predictions(model, loaded, X)
    np.testing.assert_array_equal(loaded.dual_coef_, model.dual_coef_)
    np.testing.assert_array_equal(loaded.intercept_, model.intercept_)
    np.testing.assert_array_equal(loaded.support_vectors_, model.support_vectors_)
    np.testing.assert_array_equal(loaded.n_support_, model.n_support_)


@pytest.mark.parametrize("n_classes", [2, 4])
def test_round_trip_of_sparse_vectors_and_probabilities(n_classes: int, tmp_path: Path) -> None:
    model, X, _ = _fitted("SVC", "rbf", n_classes, sparse=True, probability=True, random_state=0)
    save_libsvm_model(model, tmp_path / "model")
    loaded = load_libsvm_model(tmp_path / "model", sparse=True)
    assert sp.issparse(loaded.support_vectors_)
    _same_predictions(model, loaded, sp.csr_matrix(X))
    np.testing.assert_array_equal(loaded._probA, model._probA)
    np.testing.assert_array_equal(loaded._probB, model._probB)


def test_round_trip_of_a_precomputed_kernel(tmp_path: Path) -> None:
    X, y = _classes(3)
    gram = rbf_kernel(X, gamma=0.2)
    model = kernelkit.SVC(kernel="precomputed").fit(gram, y)
    save_libsvm_model(model, tmp_path / "model")
    loaded = load_libsvm_model(tmp_path / "model", n_features=len(X))
    np.testing.assert_array_equal(loaded.support_, model.support_)
    _same_predictions(model, loaded, gram[:50])


# -- LIBSVM reads kernelkit's files ------------------------------------------------------


@pytest.mark.parametrize("kernel", sorted(KERNELS))
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("name", ["SVC", "NuSVC"])
def test_libsvm_predicts_kernelkits_classifier(
    name: str, n_classes: int, kernel: str, tmp_path: Path
) -> None:
    model, X, _ = _fitted(name, kernel, n_classes, decision_function_shape="ovo")
    save_libsvm_model(model, tmp_path / "model")
    labels, values = libsvm_values(tmp_path / "model", X)
    np.testing.assert_array_equal(labels, model.predict(X))
    # LIBSVM's orientation: positive for the pair's first class (kernelkit's binary
    # decision_function is positive for the second, as scikit-learn's).
    expected = model.decision_function(X)
    expected = -expected[:, None] if n_classes == 2 else expected
    np.testing.assert_allclose(values, expected, rtol=1e-9, atol=1e-9 * np.abs(expected).max())


@pytest.mark.parametrize("name", ["SVR", "NuSVR", "OneClassSVM"])
def test_libsvm_predicts_kernelkits_other_formulations(name: str, tmp_path: Path) -> None:
    model, X, _ = _fitted(name, "rbf")
    save_libsvm_model(model, tmp_path / "model")
    labels, values = libsvm_values(tmp_path / "model", X)
    if name == "OneClassSVM":
        np.testing.assert_array_equal(labels, model.predict(X))
        expected = model.decision_function(X)
    else:
        expected = model.predict(X)
    np.testing.assert_allclose(values[:, 0], expected, rtol=1e-9, atol=1e-9)


def test_libsvm_probabilities_of_kernelkits_model(tmp_path: Path) -> None:
    model, X, _ = _fitted("SVC", "rbf", 3, probability=True, random_state=0)
    save_libsvm_model(model, tmp_path / "model")
    _, probabilities = libsvm_values(tmp_path / "model", X, probability=True)
    np.testing.assert_allclose(probabilities, model.predict_proba(X), atol=1e-6)


# -- kernelkit reads LIBSVM's files ------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "n_classes"),
    [
        ("-s 0 -t 2 -g 0.2 -c 3", 2),
        ("-s 0 -t 2 -g 0.2 -c 3", 4),
        ("-s 0 -t 1 -g 0.1 -r 1 -d 2 -c 1", 3),
        ("-s 0 -t 0 -c 1", 3),
        ("-s 1 -t 2 -g 0.2 -n 0.4", 3),
        ("-s 0 -t 2 -g 0.2 -c 3 -b 1", 2),
        ("-s 0 -t 2 -g 0.2 -c 3 -b 1", 4),
    ],
)
def test_kernelkit_predicts_libsvms_classifier(
    options: str, n_classes: int, tmp_path: Path
) -> None:
    """LIBSVM orders the labels by first appearance (here 40 before 7 before -2 ...):
    kernelkit's classes are sorted, and each pair that swaps changes sign."""
    X, y = _classes(n_classes, seed=3)
    first = np.flatnonzero(y == y.max())[0]
    X, y = np.roll(X, -first, axis=0), np.roll(y, -first)  # the largest label comes first
    trained = svm_train(y.astype(float).tolist(), libsvm_rows(X), options + " -q")
    svm_save_model(str(tmp_path / "model"), trained)
    model = load_libsvm_model(tmp_path / "model")
    assert isinstance(model, kernelkit.NuSVC if "-s 1" in options else kernelkit.SVC)
    probability = "-b 1" in options
    labels, values = libsvm_values(tmp_path / "model", X, probability)
    if probability:
        # LIBSVM's label is then the most probable class (kernelkit's predict stays the vote).
        order = np.argsort(trained.get_labels())
        np.testing.assert_allclose(model.predict_proba(X), values[:, order], atol=1e-6)
        likeliest = model.classes_[np.argmax(model.predict_proba(X), axis=1)]
        np.testing.assert_array_equal(likeliest, labels)
        return
    np.testing.assert_array_equal(model.predict(X), labels)
    # Each of LIBSVM's pairs (i, j) of its label order is kernelkit's pair of the sorted
    # classes, with the sign flipped where the two classes swap places.
    ovo = model.set_params(decision_function_shape="ovo").decision_function(X)
    ovo = -ovo[:, None] if n_classes == 2 else ovo
    rank = np.searchsorted(model.classes_, trained.get_labels())
    sorted_pairs = [(a, b) for a in range(n_classes) for b in range(a + 1, n_classes)]
    p = 0
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            a, b = sorted(rank[[i, j]])
            sign = 1.0 if rank[i] < rank[j] else -1.0
            column = ovo[:, sorted_pairs.index((a, b))]
            np.testing.assert_allclose(sign * column, values[:, p], rtol=1e-9, atol=1e-9)
            p += 1


@pytest.mark.parametrize("options", ["-s 3 -t 2 -g 0.3 -c 5 -p 0.1", "-s 4 -t 0 -n 0.5 -c 2"])
def test_kernelkit_predicts_libsvms_regressor(options: str, tmp_path: Path) -> None:
    X, y = _regression()
    svm_save_model(str(tmp_path / "model"), svm_train(y.tolist(), libsvm_rows(X), options + " -q"))
    model = load_libsvm_model(tmp_path / "model")
    _, values = libsvm_values(tmp_path / "model", X)
    np.testing.assert_allclose(model.predict(X), values[:, 0], atol=1e-9)


def test_kernelkit_predicts_libsvms_one_class_on_sparse_rows(tmp_path: Path) -> None:
    X, _ = _regression()
    X[np.abs(X) < 0.8] = 0.0  # LIBSVM writes only the non-zero features
    svm_save_model(
        str(tmp_path / "model"),
        svm_train([1.0] * len(X), libsvm_rows(X), "-s 2 -t 2 -g 0.5 -n 0.2 -q"),
    )
    model = load_libsvm_model(tmp_path / "model", n_features=X.shape[1])
    labels, values = libsvm_values(tmp_path / "model", X)
    np.testing.assert_array_equal(model.predict(X), labels)
    np.testing.assert_allclose(model.decision_function(X), values[:, 0], atol=1e-7)


@pytest.mark.parametrize("seed", range(4))
def test_a_new_class_order_gives_each_pair_its_decision_with_the_sign_of_its_order(
    seed: int,
) -> None:
    """``reorder_classes`` against the decision values it must keep: pair (c_s, c_t) of the new
    order is the old pair of those two classes, negated where they swapped; and moving back by
    the inverse order gives the layout back exactly."""
    rng = np.random.default_rng(seed)
    k = 5
    counts = rng.integers(1, 4, size=k)
    coef = rng.normal(size=(k - 1, counts.sum()))
    constant, prob_a, prob_b = (rng.normal(size=k * (k - 1) // 2) for _ in range(3))
    kernel_row = rng.normal(size=counts.sum())  # K(sv, x) of one row x
    starts = np.r_[0, np.cumsum(counts)[:-1]]

    def decisions(layout_coef: Any, n: Any, rows: Any, const: Any) -> dict[tuple[int, int], float]:
        """Each pair's decision, keyed by the classes' old indices."""
        begin = np.r_[0, np.cumsum(n)[:-1]]
        values, q = {}, 0
        for s_ in range(k):
            for t in range(s_ + 1, k):
                own = slice(begin[s_], begin[s_] + n[s_])
                other = slice(begin[t], begin[t] + n[t])
                values[(s_, t)] = (
                    layout_coef[t - 1, own] @ kernel_row[rows][own]
                    + layout_coef[s_, other] @ kernel_row[rows][other]
                    + const[q]
                )
                q += 1
        return values

    visit = rng.permutation(k)
    new = reorder_classes(visit, counts, coef, constant, prob_a, prob_b)
    old = decisions(coef, counts, np.arange(counts.sum()), constant)
    for (s_, t), value in decisions(new.coef, new.n_support, new.rows, new.constant).items():
        a, b = visit[s_], visit[t]
        expected = old[(a, b)] if a < b else -old[(b, a)]
        assert value == pytest.approx(expected, rel=1e-12, abs=1e-12)
    back = reorder_classes(
        np.argsort(visit), new.n_support, new.coef, new.constant, new.prob_a, new.prob_b
    )
    np.testing.assert_array_equal(new.rows[back.rows], np.arange(counts.sum()))
    for mine, theirs in zip(back[1:6], (counts, coef, constant, prob_a, prob_b), strict=True):
        np.testing.assert_array_equal(mine, theirs)
    assert np.array_equal(starts, np.r_[0, np.cumsum(back.n_support)[:-1]])


def test_a_loaded_model_refitted_is_a_fresh_fit(tmp_path: Path) -> None:
    """The file's class order (here 40, 7, -2: not sorted) is the loaded model's, not that of
    a later fit on other classes: the refit predicts as a fresh estimator with its parameters."""
    X, y = _classes(3, seed=3)
    first = [int(np.flatnonzero(y == c)[0]) for c in (40, 7, -2)]
    order = np.r_[first, np.setdiff1d(np.arange(len(X)), first)]
    trained = svm_train(y[order].astype(float).tolist(), libsvm_rows(X[order]), "-q -g 0.2 -b 1")
    svm_save_model(str(tmp_path / "model"), trained)
    X4, y4 = _classes(4, seed=5)
    for probability in (False, True):
        model = load_libsvm_model(tmp_path / "model")
        assert model._vote_order is not None
        model.set_params(probability=probability, random_state=0).fit(X4, y4)
        fresh = clone(model).fit(X4, y4)
        _same_predictions(model, fresh, X4)


# -- malformed files -----------------------------------------------------------------------

VALID = """svm_type c_svc
kernel_type rbf
gamma 0.5
nr_class 3
total_sv 4
rho 0.1 -0.2 0.3
label 1 2 3
nr_sv 2 1 1
SV
1 0.5 1:0.5 3:-1
-1 0.25 2:1
0.5 -1 1:1 2:2
-0.5 0.75 3:0.5
"""


def _replace(old: str, new: str) -> str:
    assert old in VALID
    return VALID.replace(old, new, 1)


MALFORMED = [
    (_replace("svm_type c_svc", "svm_type c_svm"), 1, "unknown svm_type"),
    (_replace("kernel_type rbf", "kernel_type gauss"), 2, "unknown kernel_type"),
    (_replace("gamma 0.5", "gamma nan"), 3, "gamma must be finite"),
    (_replace("gamma 0.5", "gamma -1"), 3, "gamma > 0"),
    (_replace("gamma 0.5\n", ""), 2, "gamma > 0"),
    (_replace("nr_class 3", "nr_class three"), 4, "nr_class must be an integer"),
    (_replace("total_sv 4", "total_sv 5"), 5, "total_sv is 5 but 4"),
    (_replace("rho 0.1 -0.2 0.3", "rho 0.1 -0.2"), 6, "'rho' takes 3 values"),
    (_replace("label 1 2 3", "label 1 2 2"), 7, "not distinct"),
    (_replace("nr_sv 2 1 1", "nr_sv 2 1 2"), 8, "nr_sv sums to 5"),
    (_replace("nr_sv 2 1 1\n", ""), 8, "needs 'label' and 'nr_sv'"),
    (_replace("label 1 2 3", "label 1 2 3\nlabel 1 2 3"), 8, "repeated"),
    (_replace("SV\n", "SV x\n"), 9, "'SV' must hold nothing else"),
    (VALID.split("SV\n")[0], 8, "'SV' that starts the support vectors is missing"),
    (_replace("-1 0.25 2:1", "-1 2:1"), 11, "a coefficient must be a number, got '2:1'"),
    (_replace("-1 0.25 2:1", "-1"), 11, "needs 2 coefficients, got 1"),
    (_replace("-1 0.25 2:1", "-1 0.25 2:1 1:3"), 11, "indices must increase"),
    (_replace("-1 0.25 2:1", "-1 0.25 0:1"), 11, "indices must increase from 1"),
    (_replace("-1 0.25 2:1", "-1 0.25 2"), 11, "expected index:value"),
    (_replace("-1 0.25 2:1", "-1 0.25 2:inf"), 11, "feature value must be finite"),
    (_replace("-1 0.25 2:1", "-1 0.25 4294967296:1"), 11, "exceeds 2147483647"),
    (_replace("nr_sv 2 1 1", "probA 1 2 3\nnr_sv 2 1 1"), 8, "'probA' and 'probB' come"),
    (_replace("kernel_type rbf", "kernel_type rbf\ncolour blue"), 3, "unknown header key 'colour'"),
    (_replace("nr_class 3", "\nnr_class 3"), 4, "empty line in the header"),
    (_replace("label 1 2 3", "label 1 2 9223372036854775808"), 7, "at most 9223372036854775807"),
    (_replace("gamma 0.5", "gamma 0.5\ndegree 4294967296"), 4, "degree must be at most"),
    # a blank line among the vectors is named where it is (it was blamed on total_sv's line)
    (_replace("-1 0.25 2:1\n", "\n-1 0.25 2:1\n"), 11, "empty line among the support vectors"),
    (_replace("-1 0.25 2:1\n", " \t\n-1 0.25 2:1\n"), 11, "empty line among the support vectors"),
    (_replace("-1 0.25 2:1\n", ""), 5, "total_sv is 4 but 3"),
    # Numbers as LIBSVM's C reader takes them, not as Python's int() and float() would:
    # LIBSVM reads "2_0" as 2, "1_5" as 1, an Arabic-Indic or full-width digit as 0 or not at
    # all, and a no-break space as part of a word.
    (_replace("-1 0.25 2:1", "-1 0.25 2_0:1"), 11, "feature index must be an integer, got '2_0'"),
    (_replace("-1 0.25 2:1", "-1 0.25 2:1_5"), 11, "feature value must be a number, got '1_5'"),
    (_replace("-1 0.25 2:1", "-1 0.25 2:\u0663"), 11, "feature value must be a number"),
    (_replace("-1 0.25 2:1", "-1 0.25\u00a02:1"), 11, "coefficient must be a number"),
    (_replace("label 1 2 3", "label 1 2 \uff13"), 7, "a label must be an integer"),
    (_replace("nr_sv 2 1 1", "nr_sv 2 1 1\nprob_density_marks 1"), 9, "belongs to one-class"),
]

VALID_SVR = "svm_type epsilon_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1 1:1\n"
VALID_ONE_CLASS = VALID_SVR.replace("epsilon_svr", "one_class")
MARKS = "prob_density_marks " + " ".join(str(m) for m in range(10))

MALFORMED += [
    (VALID_SVR.replace("SV\n", "label 1 2\nSV\n"), 6, "'label' belongs to classifiers"),
    (VALID_SVR.replace("SV\n", "nr_sv 1 0\nSV\n"), 6, "'nr_sv' belongs to classifiers"),
    (VALID_SVR.replace("SV\n", "probA 1\nprobB 2\nSV\n"), 7, "'probB' belongs to classifiers"),
    (VALID_SVR.replace("SV\n", "probA nan\nSV\n"), 6, "probA must be finite"),
    (VALID_SVR.replace("SV\n", "probA 1 2\nSV\n"), 6, "'probA' takes 1 values, got 2"),
    (VALID_SVR.replace("SV\n", "probA -1\nSV\n"), 6, "probA of epsilon_svr must be > 0"),
    (VALID_SVR.replace("SV\n", MARKS + "\nSV\n"), 6, "does not belong to epsilon_svr"),
    (VALID_ONE_CLASS.replace("SV\n", "probA 1\nSV\n"), 6, "does not belong to one_class"),
    (VALID_ONE_CLASS.replace("SV\n", "prob_density_marks x y\nSV\n"), 6, "takes 10 values"),
]


@pytest.mark.parametrize(("text", "line", "message"), MALFORMED)
def test_malformed_files_name_the_line(text: str, line: int, message: str, tmp_path: Path) -> None:
    path = tmp_path / "model"
    path.write_text(text)
    with pytest.raises(LibsvmModelError, match=rf"line {line}: .*{message}"):
        load_libsvm_model(path)


@pytest.mark.parametrize(
    ("old", "new", "line", "message"),
    [
        ("label 1 2 3", f"label 1 2 {'9' * 4301}", 7, "a label must be at most"),
        ("label 1 2 3", f"label 1 2 -{'9' * 4301}", 7, "a label must be at least"),
        ("total_sv 4", f"total_sv {'9' * 4301}", 5, "total_sv must be at most"),
        ("-1 0.25 2:1", f"-1 0.25 {'9' * 4301}:1", 11, "a feature index must be at most"),
    ],
)
def test_integers_of_thousands_of_digits_name_the_line(
    old: str, new: str, line: int, message: str, tmp_path: Path
) -> None:
    """An integer of more than 4300 digits raised the plain ValueError of Python's
    int-to-string limit, without the file and line; LIBSVM's leading zeros counted towards
    that limit too, so a valid "total_sv 000…04" did not load."""
    path = tmp_path / "model"
    path.write_text(_replace(old, new))
    with pytest.raises(LibsvmModelError, match=rf"line {line}: {message} .*got an integer of 4301"):
        load_libsvm_model(path)
    path.write_text(_replace("total_sv 4", f"total_sv {'0' * 5000}4"))
    assert load_libsvm_model(path).support_vectors_.shape == (4, 3)


def test_the_valid_file_loads(tmp_path: Path) -> None:
    (tmp_path / "model").write_text(VALID)
    model = load_libsvm_model(tmp_path / "model")
    assert list(model.classes_) == [1, 2, 3] and model.n_features_in_ == 3
    # Decision values by hand: pair (1, 2) is Σ c K(sv, x) − ρ over classes 1 and 2's vectors.
    x = np.array([[0.2, -0.1, 0.4]])
    sv = np.array([[0.5, 0, -1], [0, 1, 0], [1, 2, 0], [0, 0, 0.5]])
    k = np.exp(-0.5 * ((sv - x) ** 2).sum(axis=1))
    pair_12 = 1 * k[0] + -1 * k[1] + 0.5 * k[2] - 0.1
    model.set_params(decision_function_shape="ovo")
    np.testing.assert_allclose(model.decision_function(x)[0, 0], pair_12, rtol=1e-12)


def test_blank_lines_at_the_end_are_no_support_vectors(tmp_path: Path) -> None:
    """As LIBSVM's reader, which stops after total_sv lines; a blank line among the support
    vectors is still an error (above)."""
    (tmp_path / "model").write_text(VALID)
    (tmp_path / "padded").write_text(VALID + "\n  \n\t\n")
    x = np.array([[0.2, -0.1, 0.4]])
    np.testing.assert_array_equal(
        load_libsvm_model(tmp_path / "padded").decision_function(x),
        load_libsvm_model(tmp_path / "model").decision_function(x),
    )


def test_dense_vectors_too_large_to_hold_are_refused(tmp_path: Path) -> None:
    (tmp_path / "model").write_text(_replace("-1 0.25 2:1", "-1 0.25 2147483647:1"))
    assert load_libsvm_model(tmp_path / "model").support_vectors_.shape == (4, 2147483647)
    with pytest.raises(LibsvmModelError, match="4 x 2147483647 values; load them with sparse"):
        load_libsvm_model(tmp_path / "model", sparse=False)


def test_binary_bytes_are_refused(tmp_path: Path) -> None:
    (tmp_path / "model").write_bytes(b"svm_type c_svc\n\xff\xfe\x00")
    with pytest.raises(LibsvmModelError, match="not a text file"):
        load_libsvm_model(tmp_path / "model")


@pytest.mark.parametrize("line", [1, 6, 11, 12])
def test_bytes_that_are_not_utf8_name_their_line(line: int, tmp_path: Path) -> None:
    """The error gave the byte's position in the file, not its line."""
    lines = VALID.encode().split(b"\n")
    lines[line - 1] += b" \xe9"
    (tmp_path / "model").write_bytes(b"\n".join(lines))
    with pytest.raises(LibsvmModelError, match=rf"line {line}: not a text file: byte 0xe9"):
        load_libsvm_model(tmp_path / "model")


def test_line_ends(tmp_path: Path) -> None:
    """Lines end with \\n or \\r\\n, as for LIBSVM's reader: a CRLF file is the LF file's model.
    A lone \\r (old Mac OS line ends) loaded too, Python's text mode taking it for a line end,
    although the reader's doc says that only \\n ends a line and LIBSVM's reader misreads such
    a file; it is refused, naming its line."""
    x = np.array([[0.2, -0.1, 0.4]])
    (tmp_path / "lf").write_bytes(VALID.encode())
    (tmp_path / "crlf").write_bytes(VALID.replace("\n", "\r\n").encode())
    np.testing.assert_array_equal(
        load_libsvm_model(tmp_path / "crlf").decision_function(x),
        load_libsvm_model(tmp_path / "lf").decision_function(x),
    )
    (tmp_path / "cr").write_bytes(VALID.replace("\n", "\r").encode())
    with pytest.raises(LibsvmModelError, match=r"line 1: a carriage return \(\\r\) not followed"):
        load_libsvm_model(tmp_path / "cr")
    # One lone \r: the line that holds it is named.
    lines = VALID.split("\n")
    lines[6] = lines[6].replace(" ", "\r", 1)
    (tmp_path / "one").write_bytes("\n".join(lines).encode())
    with pytest.raises(LibsvmModelError, match=r"line 7: a carriage return"):
        load_libsvm_model(tmp_path / "one")


def test_numbers_in_messages_are_plain(tmp_path: Path) -> None:
    """A regression's probA of -1 was reported as "got np.float64(-1.0)"."""
    (tmp_path / "model").write_text(VALID_SVR.replace("SV\n", "probA -1\nSV\n"))
    with pytest.raises(LibsvmModelError) as error:
        load_libsvm_model(tmp_path / "model")
    assert str(error.value).endswith(f"probA of epsilon_svr must be > 0, got {float('-1')!r}")


def test_what_cannot_be_written_is_refused(tmp_path: Path) -> None:
    X, y = _classes(2)
    with pytest.raises(ValueError, match="callable kernel"):
        save_libsvm_model(kernelkit.SVC(kernel=lambda a, b: a @ b.T).fit(X, y), tmp_path / "m")
    with pytest.raises(ValueError, match="integer class labels"):
        save_libsvm_model(
            kernelkit.SVC().fit(X, np.array(["a", "b"])[(y > y.min()).astype(int)]), tmp_path / "m"
        )
    with pytest.raises(ValueError, match="FrankWolfeSVC"):
        save_libsvm_model(kernelkit.FrankWolfeSVC(random_state=0).fit(X, y), tmp_path / "m")
    # scikit-learn's SVC has the name of kernelkit's: the message says whose it is.
    from sklearn.svm import SVC as SklearnSVC

    with pytest.raises(ValueError, match=r"kernelkit's SVC.*got sklearn\.svm\._classes\.SVC"):
        save_libsvm_model(SklearnSVC().fit(X, y), tmp_path / "m")


_TOKENS = st.sampled_from(
    [
        "svm_type",
        "c_svc",
        "nu_svr",
        "one_class",
        "kernel_type",
        "precomputed",
        "rbf",
        "nr_class",
        "total_sv",
        "rho",
        "label",
        "nr_sv",
        "probA",
        "probB",
        "SV",
        "0",
        "1",
        "-1",
        "2",
        "3",
        "1e308",
        "nan",
        "0:1",
        "1:0.5",
        "2:1",
        "3:",
        ":",
        "99999999999:1",
        "\n",
    ]
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    cut=st.integers(0, len(VALID)),
    insert=st.lists(_TOKENS, max_size=6),
    at=st.integers(0, len(VALID)),
    drop=st.integers(0, 12),
)
def test_arbitrary_edits_load_or_raise_the_files_error(
    cut: int, insert: list[str], at: int, drop: int, tmp_path: Path
) -> None:
    """Valid files truncated, with tokens inserted, or with a line dropped: the reader returns
    a model or raises LibsvmModelError, never anything else."""
    lines = VALID.splitlines(keepends=True)
    text = "".join(lines[:drop] + lines[drop + 1 :])
    text = text[:at] + " ".join(insert) + text[at:]
    text = text[: max(cut, len(text) // 2)]
    path = tmp_path / "fuzzed"
    path.write_text(text)
    try:
        model = load_libsvm_model(path)
    except LibsvmModelError:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.predict(np.zeros((2, model.n_features_in_)))


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=400))
def test_arbitrary_bytes_raise_the_files_error(data: bytes, tmp_path: Path) -> None:
    path = tmp_path / "noise"
    path.write_bytes(data)
    with pytest.raises(LibsvmModelError):
        load_libsvm_model(path)


@pytest.mark.parametrize(
    ("options", "error"),
    [
        ({"n_features": 2.5}, "n_features must be an int"),
        ({"n_features": "3"}, "n_features must be an int"),
        ({"n_features": True}, "n_features must be an int"),
        ({"n_features": 2**63}, "n_features must be between"),
        ({"n_features": 0}, "n_features must be between"),
        ({"sparse": "yes"}, "sparse must be a bool"),
    ],
)
def test_load_options_of_the_wrong_kind_are_refused(
    tmp_path: Any, options: dict[str, Any], error: str
) -> None:
    """n_features = 2.5 was cut to 2, "3" and True taken, 2**63 met an OverflowError, and
    sparse="yes" was taken as true."""
    model = kernelkit.SVC().fit(np.random.default_rng(0).normal(size=(20, 3)), np.arange(20) % 2)
    kernelkit.io.save_libsvm_model(model, tmp_path / "m.model")
    with pytest.raises(ValueError, match=error):
        kernelkit.io.load_libsvm_model(tmp_path / "m.model", **options)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_sparse_rows_with_unsorted_or_repeated_indices(kernel: str, tmp_path: Path) -> None:
    """A column selection ``X[:, order]`` of a CSR matrix keeps each row's indices unsorted,
    and a CSR matrix may repeat an index. kernelkit fits such rows (the core sums the repeats),
    but the file listed them as stored: LIBSVM, whose sparse dot product walks increasing
    indices, predicted 57 % of the labels right, and kernelkit's reader refused the file. The
    support vectors are now canonical (sorted, repeats summed), and so is the file."""
    rng = np.random.default_rng(0)
    dense = np.where(rng.random((200, 10)) < 0.4, rng.standard_normal((200, 10)), 0.0)
    y = rng.integers(0, 3, 200)
    order = rng.permutation(10)
    X = sp.csr_matrix(dense)[:, order]
    assert not X.has_sorted_indices
    # Every third stored entry of each row split into two halves: the same matrix, repeated
    # indices (built from its arrays: scipy's constructors from coordinates would sum them).
    indices, data, indptr = [], [], [0]
    for row in range(X.shape[0]):
        stored = slice(X.indptr[row], X.indptr[row + 1])
        cols, values = X.indices[stored], X.data[stored].copy()
        values[::3] /= 2
        indices += [cols, cols[::3]]
        data += [values, values[::3]]
        indptr.append(indptr[-1] + len(cols) + len(cols[::3]))
    X = sp.csr_matrix((np.concatenate(data), np.concatenate(indices), indptr), shape=X.shape)
    assert not X.has_canonical_format
    np.testing.assert_allclose(X.toarray(), dense[:, order])
    model = kernelkit.SVC(kernel=kernel, gamma=0.2, decision_function_shape="ovo").fit(X, y)
    assert model.support_vectors_.has_canonical_format
    reference = X.toarray()
    save_libsvm_model(model, tmp_path / "model")
    labels, values = libsvm_values(tmp_path / "model", reference)
    np.testing.assert_array_equal(labels, model.predict(reference))
    expected = model.decision_function(reference)
    np.testing.assert_allclose(values, expected, rtol=1e-9, atol=1e-9 * np.abs(expected).max())
    loaded = load_libsvm_model(tmp_path / "model").set_params(decision_function_shape="ovo")
    _same_predictions(loaded, model, reference)


@pytest.mark.parametrize("name", NAMES)
def test_sparse_rows_with_stored_zeros_round_trip_bit_for_bit(name: str, tmp_path: Path) -> None:
    """A CSR matrix may store zeros (``X.data[mask] = 0`` keeps them). The file lists the
    non-zeros only, so a model whose support vectors kept them predicted up to 1.8e-15 apart
    from the model read back from its file. The support vectors drop stored zeros."""
    model, X, y = _fitted(name, "rbf", n_classes=3)
    rows = sp.csr_matrix(X)
    rows.data[::3] = 0.0
    assert rows.nnz > rows.count_nonzero()
    fitted = clone(model)
    fitted.fit(rows) if name == "OneClassSVM" else fitted.fit(rows, y)
    vectors = fitted.support_vectors_
    assert vectors.nnz == vectors.count_nonzero()
    np.testing.assert_array_equal(vectors.toarray(), rows[fitted.support_].toarray())
    save_libsvm_model(fitted, tmp_path / "model")
    loaded = load_libsvm_model(tmp_path / "model", sparse=True)
    _same_predictions(fitted, loaded, rows)
    _same_predictions(fitted, loaded, X)
