
1
authorization.k8s.io/v1SelfSubjectRulesReview	
default"#application/vnd.kubernetes.protobuf