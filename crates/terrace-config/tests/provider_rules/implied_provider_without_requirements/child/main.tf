# No required_providers: the resource type implies hashicorp/aws.
resource "aws_instance" "web" {
}
