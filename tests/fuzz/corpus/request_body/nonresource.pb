
2
authorization.k8s.io/v1SelfSubjectAccessReview
/healthzget"#application/vnd.kubernetes.protobuf