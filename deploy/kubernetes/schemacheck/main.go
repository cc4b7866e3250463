// Command schemacheck checks deploy/kubernetes/*.yaml against Kubernetes'
// own API types, without a cluster (`kubectl apply --dry-run=client` needs
// one to ask which kinds it serves): every document is decoded strictly
// into its kind's Go type from k8s.io/api (an unknown or misspelt field, or
// a value of the wrong type, is an error), and the Indexed Job is held to
// what a sharded run needs: completions = parallelism = the N of its
// --shard /N.
//
//	cd deploy/kubernetes/schemacheck && go run . ../*.yaml
package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func main() {
	bad := 0
	for _, path := range os.Args[1:] {
		b, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		for i, doc := range bytes.Split(b, []byte("\n---\n")) {
			if err := check(doc); err != nil {
				fmt.Printf("%s, document %d: %v\n", path, i+1, err)
				bad++
			} else {
				fmt.Printf("%s, document %d: ok\n", path, i+1)
			}
		}
	}
	if bad > 0 {
		os.Exit(1)
	}
}

func check(doc []byte) error {
	var head struct{ APIVersion, Kind string }
	if err := yaml.Unmarshal(doc, &head); err != nil {
		return err
	}
	switch head.APIVersion + " " + head.Kind {
	case "v1 PersistentVolumeClaim":
		var pvc corev1.PersistentVolumeClaim
		return yaml.UnmarshalStrict(doc, &pvc)
	case "batch/v1 Job":
		var job batchv1.Job
		if err := yaml.UnmarshalStrict(doc, &job); err != nil {
			return err
		}
		return checkJob(&job)
	default:
		return fmt.Errorf("%s %s: not a kind this check knows", head.APIVersion, head.Kind)
	}
}

// checkJob holds a Job to what Kubernetes requires of its pods and what a
// sharded dbgauge run needs of an Indexed Job.
func checkJob(j *batchv1.Job) error {
	pod := j.Spec.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever && pod.RestartPolicy != corev1.RestartPolicyOnFailure {
		return fmt.Errorf("a Job's pods restart Never or OnFailure, not %q", pod.RestartPolicy)
	}
	if len(pod.Containers) == 0 {
		return fmt.Errorf("no container")
	}
	vols := map[string]bool{}
	for _, v := range pod.Volumes {
		vols[v.Name] = true
	}
	for _, c := range pod.Containers {
		for _, m := range c.VolumeMounts {
			if !vols[m.Name] {
				return fmt.Errorf("container %s mounts %s, which is no volume of the pod", c.Name, m.Name)
			}
		}
	}
	if j.Spec.CompletionMode == nil || *j.Spec.CompletionMode != batchv1.IndexedCompletion {
		return nil
	}
	if j.Spec.Completions == nil || j.Spec.Parallelism == nil || *j.Spec.Completions != *j.Spec.Parallelism {
		return fmt.Errorf("an Indexed Job of shards runs them all at once: completions = parallelism")
	}
	if j.Spec.BackoffLimitPerIndex != nil && j.Spec.MaxFailedIndexes != nil && *j.Spec.MaxFailedIndexes > *j.Spec.Completions {
		return fmt.Errorf("maxFailedIndexes %d above completions %d", *j.Spec.MaxFailedIndexes, *j.Spec.Completions)
	}
	n := int32(0)
	for _, a := range pod.Containers[0].Args {
		if s, ok := strings.CutPrefix(a, "--shard=/"); ok {
			if _, err := fmt.Sscan(s, &n); err != nil {
				return fmt.Errorf("--shard=/%s: not a number", s)
			}
		}
	}
	if n != *j.Spec.Completions {
		return fmt.Errorf("--shard=/%d, but completions %d", n, *j.Spec.Completions)
	}
	return nil
}
