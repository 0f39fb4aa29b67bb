extension Problem {
    /// The problem a domain error is answered with over HTTP: the same mapping as
    /// ``ProblemMiddleware`` applies to a thrown error (one place, ``HubErrorKind/httpStatus``).
    ///
    /// For a unit of work that commits what a refusal itself changed (a lapsed lock released)
    /// and must record the refusal as the request's answer instead of throwing it.
    public init(_ error: any HubError) {
        self = ProblemMiddleware.problem(for: error)
    }
}
