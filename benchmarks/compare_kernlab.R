# kernlab's csi() and inchol() on the cases that compare_kernlab.py writes.
#
#   Rscript compare_kernlab.R DIR
#
# DIR holds, for each data set NAME, NAME.X.f64 and NAME.Y.f64 (the data
# and the one-hot side information as raw little-endian float64, row-major,
# so that R reads the very doubles Python holds) with their shapes in
# NAME.shape, and cases.txt: one case per line,
#
#   case data sigma rank kappa delta tol centering repeats
#
# For each case this script writes DIR/<case>.<variant>.txt, lines
# "key: values" (values printed with 17 significant digits):
#
#   csi        kernlab::csi as shipped;
#   exact      the same function with its three near-maximum pivot rules made
#              exact maxima (see below);
#   gainmax    only the rule of the CSI gain made exact;
#   lookmax    only the two rules of the look-ahead Cholesky steps made exact;
#   inchol     kernlab::inchol (plain pivoted incomplete Cholesky), maxiter = rank.
#
# kernlab's csi (from Bach's MATLAB/C code) does not take the largest
# candidate: scanning the candidates in its current permuted order, it moves
# to a later one only when that one beats the best so far by a ratio, 1/0.99
# for the residual diagonal of the look-ahead Cholesky steps and of the
# column that refills the look-ahead, 1/0.9 for the estimated CSI gain.  The
# paper (Sections 2.2 and 4.2) chooses the maximum.  The "exact" variant is
# kernlab's own function, deparsed at run time with those three divisions
# removed, so that kernlab and sklearn_bregman define the same algorithm
# ("gainmax" and "lookmax" remove some of them, to tell which one moves the
# pivots); nothing of kernlab's code is copied here.
#
# The kernel is kernlab's rbfdot, exp(-sigma |x - y|^2): sigma is
# scikit-learn's gamma.  Times (of csi as shipped and of inchol) are the
# best of `repeats` runs, in seconds, of the call alone (kernel evaluations
# included, R start-up and file reading excluded).

suppressMessages(library(kernlab))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 1) stop("usage: Rscript compare_kernlab.R DIR")
dir <- args[1]

read_f64 <- function(name, what) {
  shape <- scan(file.path(dir, paste0(name, ".shape")), quiet = TRUE)
  file <- file.path(dir, paste0(name, ".", what, ".f64"))
  cols <- if (what == "X") shape[2] else shape[3]
  v <- readBin(file, "double", n = shape[1] * cols, size = 8, endian = "little")
  matrix(v, nrow = shape[1], ncol = cols, byrow = TRUE)
}

# the three near-maximum rules: "diagmax/0.99" (look-ahead steps),
# "diagmax/0.9" (CSI gain), "a/0.99" (the column that refills the look-ahead);
# 0.99 and 0.9 print as 0.98999999999999999 and 0.90000000000000002
LOOKAHEAD_RULES <- c("diagmax/0\\.9899999", "a/0\\.9899999")
GAIN_RULE <- "diagmax/0\\.9000000"

exact_csi <- function(rules) {
  src <- deparse(getMethod("csi", "matrix")@.Data,
                 control = c("keepNA", "keepInteger", "niceNames", "showAttributes",
                             "digits17"))
  for (rule in rules) {
    at <- grepl(rule, src)
    if (sum(at) != 1) stop("kernlab's csi has changed: rule ", rule, " not found once")
    src[at] <- sub(paste0(rule, "[0-9]*"), sub("/.*", "", rule), src[at])
  }
  f <- eval(parse(text = src))
  environment(f) <- asNamespace("kernlab")
  f
}

fmt <- function(v) paste(sprintf("%.17g", v), collapse = " ")

write_result <- function(case, variant, lines) {
  con <- file(file.path(dir, paste0(case, ".", variant, ".txt")), "w")
  for (key in names(lines)) writeLines(paste0(key, ": ", fmt(lines[[key]])), con)
  close(con)
}

best_of <- function(repeats, call) {
  best <- Inf
  for (r in seq_len(repeats)) {
    t <- system.time(res <- call())[["elapsed"]]
    best <- min(best, t)
  }
  list(res = res, seconds = best)
}

variants <- list(csi = csi,
                 exact = exact_csi(c(LOOKAHEAD_RULES, GAIN_RULE)),
                 gainmax = exact_csi(GAIN_RULE),
                 lookmax = exact_csi(LOOKAHEAD_RULES))
cases <- read.table(file.path(dir, "cases.txt"), header = TRUE, stringsAsFactors = FALSE)
data <- list()
for (i in seq_len(nrow(cases))) {
  cs <- cases[i, ]
  if (is.null(data[[cs$data]])) {
    data[[cs$data]] <- list(X = read_f64(cs$data, "X"), Y = read_f64(cs$data, "Y"))
  }
  X <- data[[cs$data]]$X
  Y <- data[[cs$data]]$Y
  kpar <- list(sigma = cs$sigma)
  centering <- as.logical(cs$centering)
  for (variant in names(variants)) {
    f <- variants[[variant]]
    run <- best_of(if (variant == "csi") cs$repeats else 1, function()
      f(X, Y, kernel = "rbfdot", kpar = kpar, rank = cs$rank, centering = centering,
        kappa = cs$kappa, delta = cs$delta, tol = cs$tol))
    r <- run$res
    k <- ncol(r)
    # pivots(r) is the inverse of kernlab's row permutation P (it puts the
    # rows of G back in the data's order); the pivots in the order chosen
    # are P[1:k] = order(pivots(r))[1:k]
    write_result(cs$case, variant, list(
      pivots = order(pivots(r))[1:k] - 1,
      residual_trace = diagresidues(r)[1:(k + 1)],   # tr(K - G G') / tr K
      prediction_residual = maxresiduals(r)[1:(k + 1)],  # |Y - Q Q'Y|^2 / |Y|^2
      truegain = truegain(r)[1:k],
      predgain = predgain(r)[1:k],
      seconds = run$seconds))
  }
  run <- best_of(cs$repeats, function()
    inchol(X, kernel = "rbfdot", kpar = kpar, tol = 0, maxiter = cs$rank))
  G <- run$res@.Data
  rbf <- rbfdot(sigma = cs$sigma)
  traceK <- sum(sapply(seq_len(nrow(X)), function(j) rbf(X[j, ], X[j, ])))
  write_result(cs$case, "inchol", list(
    pivots = pivots(run$res) - 1,
    residual_trace = c(traceK, traceK - cumsum(colSums(G^2))) / traceK,
    seconds = run$seconds))
}
cat("kernlab", format(packageVersion("kernlab")), "on", R.version.string, "\n")
