export default function HomePage() {
  return (
    <main>
      <h1>Studio</h1>
      <p>
        We design and build web applications, AI systems and SaaS platforms. Send us a brief through{" "}
        <code>POST /api/contact</code>.
      </p>
    </main>
  );
}
